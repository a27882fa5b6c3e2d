import { brandErrorClass, ConfigurationError } from '../../common/errors';

/**
 * The framework packages each adapter subpath loads (optional peer dependencies of
 * approval-gate, with the ranges package.json declares). An app installs only the one it
 * uses, so a subpath imported without its framework must say so plainly instead of
 * failing on a `require` deep inside the package.
 */
export const ADAPTER_PEERS = {
  'ai-sdk': { ai: '^6.0.0' },
  'openai-agents': { '@openai/agents-core': '^0.14.0' },
  langchain: { langchain: '^1.0.0', '@langchain/core': '^1.0.0' },
} as const satisfies Record<string, Record<string, string>>;

/** The error an adapter subpath throws at import when its framework is missing. */
export class MissingPeerError extends ConfigurationError {
  readonly code = 'MODULE_NOT_FOUND';
  constructor(
    readonly subpath: string,
    readonly missing: string[],
    install: string,
    cause: unknown,
  ) {
    super(
      `${subpath} needs ${missing.join(' and ')}, not installed here (optional peer ` +
        `${missing.length > 1 ? 'dependencies' : 'dependency'} of approval-gate): npm install ${install}`,
      { cause },
    );
  }
}
brandErrorClass(MissingPeerError, 'MissingPeerError');

/** Throws MissingPeerError unless every framework package of `adapter` resolves from here. */
export function requirePeers(adapter: keyof typeof ADAPTER_PEERS): void {
  const peers: Record<string, string> = ADAPTER_PEERS[adapter];
  const missing: string[] = [];
  let cause: unknown;
  for (const name of Object.keys(peers)) {
    try {
      require.resolve(name);
    } catch (err) {
      missing.push(name);
      cause ??= err;
    }
  }
  if (missing.length === 0) return;
  const install = Object.entries(peers)
    .map(([name, range]) => `${name}@${range}`)
    .join(' ');
  throw new MissingPeerError(`approval-gate/${adapter}`, missing, install, cause);
}
