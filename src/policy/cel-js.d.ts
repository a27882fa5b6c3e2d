// The few declarations of @marcbachmann/cel-js that src/policy/cel.ts uses. The package
// publishes its types through `exports` only, which this project's node10 module resolution
// does not read (a tsconfig `paths` entry would also redirect tsx at run time).
declare module '@marcbachmann/cel-js' {
  /** A parsed expression: call it with the variables to evaluate it. */
  export interface ParsedExpression {
    (context?: Record<string, unknown>): unknown;
    readonly ast: unknown;
    check(): { valid: boolean; type?: string; error?: Error };
  }
  export class Environment {
    constructor(options?: {
      unlistedVariablesAreDyn?: boolean;
      limits?: { maxAstNodes?: number; maxDepth?: number; maxListElements?: number; maxMapEntries?: number };
    });
    registerVariable(name: string, type: string): Environment;
    parse(expression: string): ParsedExpression;
  }
}
