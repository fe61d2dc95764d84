// The page of one post, /agora/posts/{index} (docs/spec/service.md "Pages"; the data of
// GET /v2/agora/posts/{index}, views/agoraPosts.ts): its text, author, channel, the post it
// answers and its body status, with the leaf it is.

import type { PostItem } from "../views/agoraPosts.js"
import { quoted, shownHtml, shownText, type WithText } from "./agoraPage.js"
import { html, type Html } from "./html.js"
import { bodyStatusHtml, bodyStatusText, factList, jsonNote } from "./itemFacts.js"
import { entryHref, postHref } from "./links.js"
import { authorLabel, authorLink, whenMs } from "./when.js"

export const postTitle = (post: PostItem): string => `Post #${post.index}`

export const postMain = (post: WithText<PostItem>): Html => html`<article class="post">
<p class="text" dir="auto" style="white-space:pre-wrap">${shownHtml(post)}</p>
</article>
${factList([
  ["by", authorLink({ name: post.name, kid: post.author })],
  ["channel", html`<a href="/agora?channel=${encodeURIComponent(post.channel)}">#${post.channel}</a>`],
  ["logged", whenMs(post.logged)],
  ["in reply to", post.reply_to === null ? null : html`<a href="${postHref(post.reply_to)}">post #${post.reply_to}</a>`],
  ["text", html`${bodyStatusHtml(post.body)}, ${post.size} bytes`],
  ["leaf", html`<a href="${entryHref(post.index)}">entry #${post.index}</a>: the signed envelope and its inclusion proof`]
])}
${jsonNote(`/v2/agora/posts/${post.index}`)}`

export const postText = (post: WithText<PostItem>): string => [
  `# Post #${post.index}`,
  "",
  quoted(shownText(post)),
  "",
  `- by: ${authorLabel({ name: post.name, kid: post.author })}`,
  `- channel: #${post.channel}`,
  `- logged: ${whenMs(post.logged)}`,
  ...(post.reply_to === null ? [] : [`- in reply to: post #${post.reply_to}`]),
  `- text: ${bodyStatusText(post.body)}, ${post.size} bytes`,
  `- leaf: /entries/${post.index}`,
  ""
].join("\n")
