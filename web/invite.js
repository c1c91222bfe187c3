// 친구 부르기: the room link as a QR code (drawn here by the vendored qrcode-generator, see
// web/vendor/SOURCE.md) for friends at the same table, and the Web Share API where the phone has
// it; otherwise the link is copied.
import { qrcode } from './qrcode.mjs';
import { h, s, toast } from './ui.js';

/** An SVG of `text` as a QR code (error correction M, four modules of quiet zone). */
export function qrSvg(text, label) {
  const qr = qrcode(0, 'M');
  qr.addData(text);
  qr.make();
  const n = qr.getModuleCount();
  const quiet = 4;
  let d = '';
  for (let r = 0; r < n; r += 1) {
    for (let c = 0; c < n; c += 1) {
      if (qr.isDark(r, c)) d += `M${c + quiet} ${r + quiet}h1v1h-1z`;
    }
  }
  const size = n + quiet * 2;
  return s('svg', {
    class: 'qr', viewBox: `0 0 ${size} ${size}`, role: 'img', 'aria-label': label, testid: 'invite-qr',
    'data-link': text, 'shape-rendering': 'crispEdges',
  },
  s('rect', { width: size, height: size, fill: '#fff' }),
  s('path', { d, fill: '#000' }));
}

async function share(url) {
  if (navigator.share) {
    try {
      await navigator.share({ title: '마당', text: '같이 해요!', url });
      return;
    } catch (e) {
      if (e?.name === 'AbortError') return;
    }
  }
  try {
    await navigator.clipboard.writeText(url);
    toast('링크를 복사했어요. 친구에게 보내 주세요.');
  } catch {
    toast(url);
  }
}

/** The invite card of a room's lobby. */
export function inviteCard(url) {
  const canShare = typeof navigator.share === 'function';
  return h('section', { class: 'card invite', testid: 'invite' },
    h('h2', { text: '친구 부르기' }),
    h('div', { class: 'invite-body' },
      qrSvg(url, '이 방으로 오는 QR 코드'),
      h('div', { class: 'invite-text' },
        h('p', { text: '같은 자리에 있다면 휴대폰 카메라로 QR 코드를 찍어 들어오세요.' }),
        h('button', {
          type: 'button', class: 'primary', testid: 'invite-share',
          text: canShare ? '공유하기' : '링크 복사', onclick: () => share(url),
        }))));
}
