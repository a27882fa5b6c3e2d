import { Context } from '@temporalio/activity';

/**
 * Runs `op` while heartbeating every `everyMs`, so that Temporal notices within the
 * activity's heartbeat timeout that the worker died, or that the completion it sent was
 * lost with a restarting server, instead of only at the start-to-close timeout. Outside
 * an activity (a direct call in a test) it just runs `op`.
 */
export async function withHeartbeat<T>(op: () => Promise<T>, everyMs = 2000): Promise<T> {
  let ctx: Context | undefined;
  try {
    ctx = Context.current();
  } catch {
    return op();
  }
  const beat = setInterval(() => ctx.heartbeat(), everyMs);
  try {
    return await op();
  } finally {
    clearInterval(beat);
  }
}
