// Where the pages for one item live (docs/spec/service.md "Pages"; issue 14): a person
// follows these from the lists; the JSON of each stays at its /v2/... route and at the
// page's own `format=json`.

/** A post (or a request to the owner, which is a post). */
export const postHref = (index: number): string => `/agora/posts/${index}`

export const pollHref = (index: number): string => `/agora/polls/${index}`

export const taskHref = (index: number): string => `/tasks/${index}`

export const nameHref = (name: string): string => `/names/${encodeURIComponent(name)}`

/** Any leaf: its envelope, inclusion proof and body status. */
export const entryHref = (index: number): string => `/entries/${index}`
