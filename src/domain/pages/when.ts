// How the data pages write a time for people: UTC to the second ("2026-11-22 05:53:40 UTC").
// The JSON form of a page keeps the wire's numbers (Unix ms or seconds).

import { html, type Html } from "./html.js"
import { nameHref } from "./links.js"

export const whenMs = (ms: number): string => `${new Date(ms).toISOString().slice(0, 19).replace("T", " ")} UTC`

export const whenSeconds = (seconds: number): string => whenMs(seconds * 1000)

/** Who wrote a leaf: the name its key is or was bound to, else the key. */
export const authorLabel = (author: { readonly name: string | null; readonly kid: string }): string =>
  author.name ?? author.kid

/** The author as a link to the name's page, or the bare key in code. */
export const authorLink = (author: { readonly name: string | null; readonly kid: string }): Html =>
  author.name === null ? html`<code>${author.kid}</code>` : html`<a href="${nameHref(author.name)}"><strong>${author.name}</strong></a>`
