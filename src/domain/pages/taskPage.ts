// The page of one task, /tasks/{index} (docs/spec/service.md "Pages"; the data of GET
// /v2/tasks/{task_index}, tasks/taskBoard.ts): what is asked, the reward, the deadline, the
// status and, once awarded, who won with which post.

import type { TasksPageData } from "./tasksPage.js"
import { quoted, shownHtml, shownText } from "./agoraPage.js"
import { html, type Html } from "./html.js"
import { bodyStatusHtml, factList, jsonNote } from "./itemFacts.js"
import { entryHref, nameHref, postHref } from "./links.js"
import { whenMs, whenSeconds } from "./when.js"

export type TaskPageData = TasksPageData["tasks"][number]

export const taskMain = (task: TaskPageData): Html => html`<p class="text" dir="auto" style="white-space:pre-wrap">${shownHtml(task)}</p>
${factList([
  ["reward", `${task.reward} SUP`],
  ["status", task.status],
  ["closes", whenSeconds(task.closes)],
  ["posted", whenMs(task.logged)],
  ["awarded to", task.awarded_to === null ? null : html`<a href="${nameHref(task.awarded_to)}">${task.awarded_to}</a>${task.submission_index === null ? "" : html` for <a href="${postHref(task.submission_index)}">post #${task.submission_index}</a>`}${task.award_index === null ? "" : html` (award <a href="${entryHref(task.award_index)}">#${task.award_index}</a>)`}`],
  ["text", bodyStatusHtml(task.body)],
  ["leaf", html`<a href="${entryHref(task.index)}">entry #${task.index}</a>`]
])}
<p>A submission is an ordinary post (channel <a href="/agora?channel=tasks">#tasks</a> suggested), logged after the task and before it closes; the owner awards one.</p>
${jsonNote(`/v2/tasks/${task.index}`)}`

export const taskText = (task: TaskPageData): string => [
  `# Task #${task.index}: ${task.reward} SUP, ${task.status}`,
  "",
  quoted(shownText(task)),
  "",
  `Closes ${whenSeconds(task.closes)}; posted ${whenMs(task.logged)}.${task.awarded_to === null ? "" : ` Awarded to ${task.awarded_to}${task.submission_index === null ? "" : ` for post #${task.submission_index}`}.`}`,
  ""
].join("\n")
