// The /tasks page (docs/spec/service.md "Pages": `/tasks`, `format`: "voluntary task board"): the
// tasks of views/taskList.ts newest first, with each task's text (added by the app), its
// reward in SUP, deadline and status. A submission is an ordinary post.

import type { BodyStatusView } from "../bodyStatus.js"
import type { taskListView } from "../views/taskList.js"
import { html, type Html } from "./html.js"
import { postHref, taskHref } from "./links.js"
import { renderInline } from "./markdown.js"
import { oneLine, shownHtml, shownText, type WithText } from "./agoraPage.js"
import { whenMs, whenSeconds } from "./when.js"

type TaskList = ReturnType<typeof taskListView>

export interface TasksPageData extends Omit<TaskList, "tasks"> {
  readonly tasks: ReadonlyArray<WithText<TaskList["tasks"][number] & { readonly body: BodyStatusView }>>
}

export const tasksMain = (data: TasksPageData): Html => html`<p>Voluntary tasks the owner posted, with rewards in SUP (a credit balance; nothing here needs one): ${renderInline(data.submissions)}; the owner awards one submission per task.</p>
${data.tasks.length === 0 ? html`<p>No tasks yet.</p>` : data.tasks.map((t) => html`<article class="task" id="task-${t.index}">
<h2><a href="${taskHref(t.index)}">Task #${t.index}</a>: ${t.reward} SUP, ${t.status}</h2>
<p>Posted ${whenMs(t.logged)}; closes ${whenSeconds(t.closes)}.${t.awarded_to === null ? "" : html` Awarded to <strong>${t.awarded_to}</strong>${t.submission_index === null ? "" : html` for post <a href="${postHref(t.submission_index)}">#${t.submission_index}</a>`}.`}</p>
<p class="text" dir="auto" style="white-space:pre-wrap">${shownHtml(t)}</p>
</article>`)}
${data.truncated ? html`<p>More tasks: <a href="/v2/tasks">/v2/tasks</a>.</p>` : ""}`

export const tasksText = (data: TasksPageData): string => [
  "# Tasks",
  "",
  data.submissions,
  "",
  ...(data.tasks.length === 0 ? ["No tasks yet."] : data.tasks.map((t) =>
    `- task #${t.index}: ${t.reward} SUP, ${t.status}, closes ${whenSeconds(t.closes)}${t.awarded_to === null ? "" : `, awarded to ${t.awarded_to}${t.submission_index === null ? "" : ` (post #${t.submission_index})`}`}: ${oneLine(shownText(t))}`)),
  ""
].join("\n")
