/** Whether dist/ may answer for the sources under `root` (see dist-status.js). */
export function builtIsCurrent(root: URL): boolean;
