// Compiled by `tsc --strict` (npm run typecheck): how a TypeScript app uses the library. It is
// never run; the node tests exercise the same calls against a real server.
import { MadangClient, MadangError, type Room } from '../src/madang.js';

export async function example(baseUrl: string): Promise<Room | null> {
  const client = new MadangClient({ baseUrl });
  const seat = await client.createRoom({ game: 'baduk', name: '흑돌', options: { boardSize: 9 } });
  const room = client.session(seat);
  try {
    const acted = await room.act({ type: 'start' }, { pin: true });
    const version: number = acted.version;
    const replayed: boolean = acted.replayed;
    void version, replayed;
  } catch (e) {
    if (e instanceof MadangError && e.code === 'VERSION_CONFLICT') return e.room ?? null;
    throw e;
  }
  const watch = room.watch((r: Room) => {
    // `game` narrows the room to its game's view, in the spec's names.
    if (r.game === 'baduk' && r.state) {
      const dead: number[] = r.state.scoringMarks?.dead ?? [];
      const ko: { x: number; y: number } | null = r.state.koPoint;
      void dead, ko, r.state.undo.pending, r.state.draw.pendingBy;
    } else if (r.game === 'yut' && r.state) {
      const seq: number = r.state.turnSeq;
      void seq, r.state.hint;
    }
    const commitment: string = r.rngCommitment;
    console.log(r.version, r.status, commitment);
  });
  watch.stop();
  return client.getRoom(seat.roomId ?? '', { token: seat.token, since: 3, wait: 25 });
}
