// This folder's own config: without one, vitest would take the checkout's vitest.config.ts
// (two folders up) and its reporters.
export default {};
