/** Vite's `?raw` import: a file's text, as tests that compare a doc's example with the Worker's answer read it. */
declare module "*.md?raw" {
  const text: string;
  export default text;
}
