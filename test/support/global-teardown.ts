export default async function globalTeardown(): Promise<void> {
  await globalThis.__GATE_DEV_SERVER__?.stop();
}
