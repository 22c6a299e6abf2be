// Tests read JSON bodies of responses whose shapes they assert field by field; typing each one adds nothing.
declare global {
  interface Response {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    json(): Promise<any>;
  }
}
export {};
