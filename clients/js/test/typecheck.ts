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
  const watch = room.watch((r: Room) => console.log(r.version, r.status));
  watch.stop();
  return client.getRoom(seat.roomId ?? '', { token: seat.token, since: 3, wait: 25 });
}
