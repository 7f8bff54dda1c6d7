/** Why this Node cannot run the package under `root`, or undefined when it can (see node-support.js). */
export function unsupportedNode(root: URL, version?: string): string | undefined;
