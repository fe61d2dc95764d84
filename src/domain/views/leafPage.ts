// A page of a list view (posts, polls, requests, tasks): the leaf indexes it shows, newest
// first, and whether the list holds more after them. The whole state's Chunks give one
// (chunks.ts newestFirst, firstAccepted), and so does a list of the projection store read
// by position (app/listStreams.ts): the views build their answer from the page either way.

export interface LeafPage {
  readonly items: ReadonlyArray<number>
  readonly truncated: boolean
}
