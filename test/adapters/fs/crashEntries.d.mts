/** Entry i of the crash test's deterministic log. */
export declare const crashEntry: (index: number) => Uint8Array
