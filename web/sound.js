// Sound and motion (yut.md §9, baduk.md §9): short Web Audio tones for a stone, a capture, the
// throw and a piece's step (no audio files), and the 초읽기 count spoken in Korean (Web Speech
// API where the browser has it, a tone where not). One switch turns sound and motion off
// together; it persists in localStorage, and motion also stays off under
// `prefers-reduced-motion`.
import { h } from './ui.js';

const KEY = 'madang.sound';
let ctx = null;

/** Whether sound and motion are on (the player's switch; on until switched off). */
export function soundOn() {
  try {
    return localStorage.getItem(KEY) !== 'off';
  } catch {
    return true;
  }
}

function setSound(on) {
  try {
    localStorage.setItem(KEY, on ? 'on' : 'off');
  } catch {
    // Private mode without storage: the switch lasts for this page only.
  }
  document.documentElement.dataset.sound = on ? 'on' : 'off';
}

/** Whether pieces may hop and fly: the switch is on and the system asks for no reduced motion. */
export function motionOn() {
  return soundOn() && !globalThis.matchMedia?.('(prefers-reduced-motion: reduce)').matches;
}

function audio() {
  if (!soundOn()) return null;
  const Ctx = globalThis.AudioContext ?? globalThis.webkitAudioContext;
  if (!Ctx) return null;
  ctx ??= new Ctx();
  // Browsers start a context suspended until a gesture; every sound here follows one.
  if (ctx.state === 'suspended') ctx.resume().catch(() => {});
  return ctx;
}

/** One tone: `freq` Hz for `ms`, starting `at` ms from now, shaped so it does not click. */
function tone(freq, ms, { at = 0, type = 'sine', gain = 0.2, slide = null } = {}) {
  const a = audio();
  if (!a) return;
  const t0 = a.currentTime + at / 1000;
  const osc = a.createOscillator();
  const env = a.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(freq, t0);
  if (slide) osc.frequency.exponentialRampToValueAtTime(slide, t0 + ms / 1000);
  env.gain.setValueAtTime(0.0001, t0);
  env.gain.exponentialRampToValueAtTime(gain, t0 + 0.008);
  env.gain.exponentialRampToValueAtTime(0.0001, t0 + ms / 1000);
  osc.connect(env).connect(a.destination);
  osc.start(t0);
  osc.stop(t0 + ms / 1000 + 0.02);
}

/** The sounds of the games. */
export const sfx = {
  /** A stone set on the board: a short wooden knock. */
  stone() {
    tone(620, 70, { type: 'triangle', gain: 0.35, slide: 300 });
  },
  /** Stones taken off: a falling run, one note per stone up to five. */
  capture(count = 1) {
    for (let i = 0; i < Math.min(count, 5); i += 1) tone(880 - i * 90, 90, { at: i * 70, type: 'square', gain: 0.08 });
  },
  /** The sticks: four clacks as they land. */
  toss() {
    for (let i = 0; i < 4; i += 1) tone(300 + i * 70, 45, { at: 500 + i * 80, type: 'triangle', gain: 0.3, slide: 180 });
  },
  /** One hop of a piece. */
  step(i = 0) {
    tone(520 + i * 40, 60, { at: i * 160, type: 'sine', gain: 0.2 });
  },
  /** A piece caught and sent home. */
  caught() {
    tone(700, 260, { type: 'sawtooth', gain: 0.08, slide: 180 });
  },
};

const KOREAN_NUMBERS = ['영', '하나', '둘', '셋', '넷', '다섯', '여섯', '일곱', '여덟', '아홉', '열'];
let spoken = null;

/**
 * Says the 초읽기 second once per second and number: "열, 아홉, …" in Korean where the browser
 * can speak, a beep (higher at the end) where not. Returns what was used ('speech', 'tone',
 * or null when sound is off or the number was said already).
 */
export function countdown(seconds, key) {
  const id = `${key}:${seconds}`;
  if (spoken === id || !soundOn() || seconds < 1 || seconds > 10) return null;
  spoken = id;
  const synth = globalThis.speechSynthesis;
  if (synth && typeof globalThis.SpeechSynthesisUtterance === 'function') {
    const u = new SpeechSynthesisUtterance(KOREAN_NUMBERS[seconds]);
    u.lang = 'ko-KR';
    u.rate = 1.2;
    synth.cancel();
    synth.speak(u);
    return 'speech';
  }
  tone(seconds <= 3 ? 1040 : 760, 120, { type: 'square', gain: 0.1 });
  return 'tone';
}

/** The header's switch for sound and motion. */
export function soundToggle() {
  const button = h('button', { type: 'button', class: 'secondary small sound-toggle', testid: 'sound-toggle' });
  const show = () => {
    const on = soundOn();
    button.setAttribute('aria-pressed', String(on));
    button.textContent = on ? '♪ 소리·움직임 켬' : '소리·움직임 끔';
  };
  button.addEventListener('click', () => {
    setSound(!soundOn());
    show();
    if (soundOn()) sfx.stone();
  });
  document.documentElement.dataset.sound = soundOn() ? 'on' : 'off';
  show();
  return button;
}
