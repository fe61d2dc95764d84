// The page a person sees when a page's request fails (docs/protocol.md 18): the same
// problem a program reads as application/problem+json (an unknown name, post or poll, a bad
// parameter), said in the page frame with the status, the problem's detail, each bad
// parameter of a 422, and the way home. Every text of the problem (which may echo the
// request) reaches the page through the `html` tag, escaped.

import { html } from "./html.js"
import { pageDocument } from "./layout.js"

/** The members of a problem document (RFC 9457, docs/spec/profile.md section 7) a page shows. */
export interface ShownProblem {
  readonly status: number
  readonly title: string
  readonly code: string
  readonly detail: string
  readonly errors?: ReadonlyArray<{ readonly path: string; readonly message: string }>
}

/**
 * What went wrong, in words: the code when it says more than the status's title
 * (`post_not_found`: "Post not found"), else that title ("Not found").
 */
export const errorTitle = (problem: ShownProblem): string => {
  const words = problem.code.replace(/_/g, " ").trim()
  if (words === "" || words.toLowerCase() === problem.title.toLowerCase()) return problem.title
  return `${words[0]!.toUpperCase()}${words.slice(1)}`
}

/** The HTML error page of `problem`, answered for a page at `path`. */
export const errorPageDocument = (path: string, problem: ShownProblem): string =>
  pageDocument({
    path,
    title: errorTitle(problem),
    description: `${problem.status} ${problem.title}: ${problem.detail}`,
    formats: false,
    main: html`<p class="problem-detail">${problem.detail}</p>
${problem.errors === undefined || problem.errors.length === 0 ? "" : html`<ul class="problem-errors">${problem.errors.map((e) => html`<li><strong>${e.path === "" ? "request" : e.path}</strong>: ${e.message}</li>`)}</ul>`}
<p>HTTP ${problem.status} ${problem.title}, code <code>${problem.code}</code>. Programs get this answer as <code>application/problem+json</code> (send <code>Accept: application/json</code>).</p>
<p><a href="/">Go to the home page</a> · <a href="/agora">the agora</a> · <a href="/directory">the directory</a></p>`
  })
