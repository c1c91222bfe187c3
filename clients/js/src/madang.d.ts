// Types of `madang.js`. The API's shapes come from `openapi.d.ts`, generated from
// `functions/openapi.json` by `npm run gen` (never edit that file by hand).

import type { components } from './openapi.js';

type Schemas = components['schemas'];

/** A 윷놀이 room as the server shows it to one caller. */
export type YutRoom = Schemas['YutRoom'];
/** A 바둑 room as the server shows it to one caller. */
export type BadukRoom = Schemas['BadukRoom'];
/** A room as the server shows it to one caller (`GET /rooms/{id}`); `game` tells which. */
export type Room = YutRoom | BadukRoom;
/** A room replayed at one step (`GET /rooms/{id}/at/{n}`): the room view and `replay: {at, of}`. */
export type ReplayRoom = Schemas['YutReplay'] | Schemas['BadukReplay'];
/** The answer of creating or joining a room: the seat's id and token (shown once). */
export type Seated = Schemas['YutSeated'] | Schemas['BadukSeated'];
/** `POST /rooms` body. */
export type CreateRoom = Schemas['CreateRoom'];
/** An action (lobby or game), `{type, …}`. */
export type Action = Schemas['Action'];
/** A game's option schema (`GET /games/{kind}`). */
export type GameSchema = Schemas['GameSchema'];
/** An RFC 9457 problem with the stable `code`. */
export type Problem = Schemas['Problem'];
/** The 바둑 review of a finished game (`GET /rooms/{id}/review`, 200). */
export type Review = Schemas['Review'];
/** The review is being computed (202): ask again after `retryAfterSecs`. */
export type ReviewComputing = { status: 'computing'; retryAfterSecs: number };
/** A chat message as `GET /rooms/{id}/chat` returns it. */
export type ChatMessage = Schemas['ChatMessage'];
/** `POST /rooms/{id}/chat` body. */
export type ChatPost = Schemas['ChatPost'];
/** The answer of an action, with what the client learnt from the headers. */
export type Acted = (Schemas['YutActed'] | Schemas['BadukActed']) & {
  /** The server replayed the first answer to this Idempotency-Key (`Idempotent-Replayed`). */
  replayed: boolean;
  /** The Idempotency-Key the action was sent with. */
  idempotencyKey: string;
};

/** The longest a long-poll may hold on the server (seconds). */
export declare const MAX_WAIT_SECONDS: 25;

/** A failed request: the server's problem, or `status` 0 / `NETWORK_ERROR` for the network. */
export declare class MadangError extends Error {
  constructor(
    problem: Partial<Problem> & { status: number; code: string },
    extra?: { cause?: unknown },
  );
  readonly type: string;
  readonly title: string;
  readonly status: number;
  /** Stable machine code, e.g. `NOT_YOUR_TURN`, `VERSION_CONFLICT`, `NETWORK_ERROR`. */
  readonly code: string;
  /** The Korean message for players. */
  readonly detail: string;
  /** `INVALID_OPTIONS`: the offending option. */
  readonly field?: string;
  /** `VERSION_CONFLICT`: the room as it is now. */
  readonly room?: Room;
  readonly problem: Problem;
  /** Whether the same request may succeed later (network failure, 429, 502–504). */
  readonly retryable: boolean;
}

/** A fresh Idempotency-Key (128 random bits, hex). */
export declare function newIdempotencyKey(): string;
/** Milliseconds a `Retry-After` value asks to wait, or null when there is none. */
export declare function retryAfterMs(value: string | null | undefined, now?: number): number | null;
/** The lowercase hex SHA-256 of `text` (UTF-8), or null where Web Crypto is not available (sent as `x-amz-content-sha256` with every body). */
export declare function sha256Hex(text: string): Promise<string | null>;

export interface ClientOptions {
  /** The server's origin (default: the page's origin in a browser). */
  baseUrl?: string;
  fetch?: typeof fetch;
  /** Retries of a retryable failure (default 4). */
  retries?: number;
  /** First backoff delay in ms (default 200; doubles each retry). */
  backoffMs?: number;
  /** Longest backoff delay in ms (default 8000). */
  maxBackoffMs?: number;
  /** Time allowed to a request beyond its long-poll wait, ms (default 15000). */
  timeoutMs?: number;
}

export interface GetRoomOptions {
  token?: string | null;
  /** Long-poll: answer once the version passes this (null when nothing changed). */
  since?: number;
  /** Seconds to hold the long-poll (≤ 25). */
  wait?: number;
  signal?: AbortSignal;
}

export interface ActOptions {
  /** Refuse with 409 VERSION_CONFLICT (and the current room) unless the room is at this version. */
  expectedVersion?: number;
  /** Reuse a key to retry an action whose answer was lost (default: a fresh key per call). */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

export interface WatchOptions {
  token?: string | null;
  /** The version already known (or a function giving it each time round). */
  since?: number | (() => number | undefined);
  wait?: number;
  onRoom?: (room: Room) => void;
  onError?: (error: unknown) => void;
  signal?: AbortSignal;
}

export interface Watch {
  stop(): void;
  /** Settles when the loop has stopped. */
  done: Promise<void>;
}

/** A live watch: `rearm()` says the caller holds a newer room (its `latest()`), so the loop
 * re-arms its deadline on it. */
export interface LiveWatch extends Watch {
  rearm(): void;
}

export declare class MadangClient {
  constructor(options?: ClientOptions);
  readonly baseUrl: string;
  backoff(attempt: number): number;
  request(
    method: string,
    path: string,
    options?: {
      body?: unknown;
      token?: string | null;
      headers?: Record<string, string>;
      signal?: AbortSignal;
      replayable?: boolean;
      waitSec?: number;
    },
  ): Promise<Response>;
  games(kind: 'yut' | 'baduk' | string, options?: { signal?: AbortSignal }): Promise<GameSchema>;
  createRoom(body: CreateRoom, options?: { signal?: AbortSignal }): Promise<Seated>;
  joinRoom(
    roomId: string,
    name: string,
    options?: { signal?: AbortSignal; token?: string; idempotencyKey?: string },
  ): Promise<Seated>;
  getRoom(roomId: string, options?: GetRoomOptions): Promise<Room | null>;
  act(roomId: string, token: string | null, action: Action, options?: ActOptions): Promise<Acted>;
  sgf(roomId: string, options?: { signal?: AbortSignal }): Promise<string>;
  replayStep(roomId: string, n: number, options?: { signal?: AbortSignal }): Promise<ReplayRoom>;
  review(roomId: string, options?: { signal?: AbortSignal }): Promise<Review | ReviewComputing>;
  chat(
    roomId: string,
    options?: { token?: string | null; after?: number; signal?: AbortSignal },
  ): Promise<ChatMessage[] | null>;
  say(
    roomId: string,
    body: ChatPost,
    options?: { token?: string | null; signal?: AbortSignal },
  ): Promise<{ seq: number }>;
  muteChat(
    roomId: string,
    token: string,
    playerId: string,
    muted: boolean,
    options?: { signal?: AbortSignal },
  ): Promise<{ muted: string[] }>;
  watch(roomId: string, options?: WatchOptions): Watch;
  /**
   * Watches through the live channel (`liveUrl`): a version announced → one read; a deadline →
   * one read; polls on `pollAfterMs` while the socket is down, and reopens it with backoff.
   */
  watchLive(roomId: string, options: LiveWatchOptions): LiveWatch;
  /** From a `Seated` answer, or `{roomId}` alone for a spectator. */
  session(seat: {
    roomId?: string | null;
    token?: string | null;
    playerId?: string | null;
    room?: Room | null;
  }): RoomSession;
}

export declare class RoomSession {
  readonly client: MadangClient;
  readonly roomId: string;
  token: string | null;
  playerId: string | null;
  /** The newest room seen. */
  room: Room | null;
  readonly listeners: Set<(room: Room) => void>;
  /** Keeps `room` if newer than the one held (or as new, with `replace`) and tells the listeners. */
  accept(room: Room | null | undefined, options?: { replace?: boolean }): boolean;
  refresh(options?: { signal?: AbortSignal }): Promise<Room | null>;
  /** `pin: true` sends the held version as expectedVersion. */
  act(action: Action, options?: ActOptions & { pin?: boolean }): Promise<Acted>;
  watch(
    listener?: (room: Room) => void,
    options?: {
      onError?: (error: unknown) => void;
      signal?: AbortSignal;
      /** Hears the live socket go up (`true`) and down. */
      status?: (up: boolean) => void;
      /** Each chat message the live socket brings (see `LiveWatchOptions.onChat`). */
      onChat?: (message: ChatMessage) => void;
      /** The live socket's hello was taken (see `LiveWatchOptions.onHello`). */
      onHello?: () => void;
      /** The WebSocket implementation (default: the global one; none: long-polls). */
      WebSocket?: LiveSocketConstructor;
    },
  ): Watch;
}

/** What `watchLive` needs of a WebSocket implementation (the browser's, Node's). */
export interface LiveSocket {
  readonly readyState: number;
  send(data: string): void;
  close(): void;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: unknown) => void) | null;
  onerror: ((event: unknown) => void) | null;
}

/** A WebSocket constructor. */
export type LiveSocketConstructor = new (url: string) => LiveSocket;

/** Options of `MadangClient.watchLive`. */
export interface LiveWatchOptions {
  token?: string | null;
  /** The last version known, or a function giving the newest the caller has seen. */
  since?: number | (() => number | undefined);
  /** The room's `liveUrl`. */
  liveUrl: string;
  /** The room as last read (its `deadlineAt` and `pollAfterMs` pace the reads). */
  room?: Room | null;
  /** The newest room the caller holds (its own action's answers): its deadline counts too. */
  latest?: () => Room | null | undefined;
  /** How long past a deadline to read (default 100 ms). */
  deadlineSlackMs?: number;
  /** The clock deadlines are compared with (default `Date.now`). */
  now?: () => number;
  /**
   * With a token: read the room after this long without a request to it (default 30 s), so
   * the player stays present (the server's presence window is 45 s) while rooms arrive over
   * the socket.
   */
  keepPresentMs?: number;
  onRoom?: (room: Room) => void;
  onError?: (error: unknown) => void;
  /**
   * Hears the channel go up (`true`: the server answered the hello with a `version` or a
   * `pong`) and down. Until it is up, the room is polled.
   */
  status?: (up: boolean) => void;
  /**
   * Each chat message `M` the server sends over the socket (`{"type":"chat","message":M}`):
   * only what this caller may see, posted after the hello.
   */
  onChat?: (message: ChatMessage) => void;
  /**
   * The server took the hello (the `pong` of the `ping` sent right after it): catch up with
   * `chat(roomId, {after})` now, and the socket brings the rest.
   */
  onHello?: () => void;
  signal?: AbortSignal;
  WebSocket?: LiveSocketConstructor;
  /** How often to send `ping` (default 9 minutes, under API Gateway's 10-minute idle cut). */
  heartbeatMs?: number;
  /**
   * How long an open socket may leave its hello unanswered before it is closed and opened
   * again (default 10 s); the room is polled meanwhile.
   */
  helloTimeoutMs?: number;
}
