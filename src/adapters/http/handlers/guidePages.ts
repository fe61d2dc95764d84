// The static pages (docs/spec/service.md "Pages": /card, /contribute, /notice and the seven guidance
// pages with their `.md` variants; docs/protocol.md section 15.4), in the shared frame
// (domain/pages/layout.ts) and the shared `format` handling (pageResponse.ts). A guidance
// page is one Markdown source (domain/pages/questions.ts): `.md` serves it, the page
// renders it. /card?format=json is the card's exact signed bytes, as the well-known path.

import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Card } from "../../../app/Card.js"
import { ServiceConfig } from "../../../app/ServiceConfig.js"
import { StateReader } from "../../../app/StateReader.js"
import { fromUtf8 } from "../../../domain/bytes.js"
import type { ContributionAddress } from "../../../domain/card/card.js"
import { cardMain, cardText } from "../../../domain/pages/cardPage.js"
import { contributeData, contributeMarkdown } from "../../../domain/pages/contributePage.js"
import { pageDocument, type PageFormat } from "../../../domain/pages/layout.js"
import { renderMarkdown } from "../../../domain/pages/markdown.js"
import { html, type Html } from "../../../domain/pages/html.js"
import { noticeData, noticeForm, noticeMarkdown } from "../../../domain/pages/noticePage.js"
import { questionPageAt } from "../../../domain/pages/questions.js"
import { Clock } from "../../../ports/Clock.js"
import { AicsApi } from "../api.js"
import { cardResponse } from "../cardResponse.js"
import { orUnavailable } from "./common.js"
import { GuidePagesGroup } from "../discoveryApi.js"
import { pageResponse } from "../pageResponse.js"
import { siteFacts } from "../siteFacts.js"
import { MARKDOWN, textDocument } from "../textDocument.js"

type GuideRoute = keyof typeof GuidePagesGroup.endpoints & string

export const GuidePagesHandlers = HttpApiBuilder.group(AicsApi, "guidePages", (handlers) =>
  Effect.gen(function*() {
    const facts = yield* siteFacts
    const config = yield* ServiceConfig
    const card = yield* Card
    const reader = yield* StateReader
    const clock = yield* Clock
    // The card's bytes are parsed once: the page shows them, /contribute lists its addresses.
    const cardJson = JSON.parse(fromUtf8(card.bytes)) as Record<string, unknown> & { readonly contributions: ReadonlyArray<ContributionAddress> }
    const addresses = cardJson.contributions

    /** A page whose text form is Markdown and whose JSON is `data`. */
    const markdownPage = (path: string, title: string, description: string, markdown: string, data: unknown, before?: Html) =>
      ({ urlParams }: { readonly urlParams: { readonly format?: PageFormat | undefined } }) =>
        Effect.succeed(pageResponse(urlParams.format, {
          html: () => pageDocument({ path, title, description, main: before === undefined ? renderMarkdown(markdown) : html`${before}${renderMarkdown(markdown)}` }),
          json: () => data,
          text: () => markdown
        }))

    /** The guidance page of route `name` (its path is the slug) and of `<name>Md` (the source). */
    const question = (name: GuideRoute) => {
      const slug = GuidePagesGroup.endpoints[name]!.path
      const page = questionPageAt(slug)
      if (page === undefined || GuidePagesGroup.endpoints[`${name}Md`]?.path !== `${slug}.md`) {
        throw new Error(`route ${name} (${slug}) is not a guidance page with its .md route`)
      }
      const markdown = page.markdown(facts)
      const source = textDocument(`# ${page.title}\n\n${markdown}`, MARKDOWN)
      return {
        page: markdownPage(slug, page.title, page.description, markdown,
          { slug: page.slug, title: page.title, description: page.description, markdown }),
        source: () => Effect.succeed(source)
      }
    }

    const talk = question("talkToAgents")
    const online = question("onlineNow")
    const identity = question("persistentIdentity")
    const board = question("messageBoard")
    const mailbox = question("mailbox")
    const getOnly = question("getOnly")
    const network = question("sandboxNetwork")
    const allowHttp = config.contributions.allowHttp

    return handlers
      .handle("card", ({ urlParams }) =>
        Effect.gen(function*() {
          const leaf = card.leafAt(yield* reader.resident, yield* clock.nowMillis)
          // For programs, the exact signed bytes with the well-known path's headers.
          if (urlParams.format === "json") return cardResponse(card, leaf)
          const view = { card: cardJson, hash: card.hash, leaf }
          return pageResponse(urlParams.format, {
            html: () => pageDocument({ path: "/card", title: "Assurance card", description: "What this service promises, signed with its policy key.", main: cardMain(view) }),
            json: () => cardJson,
            text: () => cardText(view)
          })
        }).pipe(orUnavailable))
      .handle("contribute", markdownPage("/contribute", "Contribute", "Addresses for voluntary contributions, or that none is open.",
        contributeMarkdown(facts, addresses, allowHttp), contributeData(facts, addresses, allowHttp)))
      .handle("notice", markdownPage("/notice", "Send a legal notice", "How to send a legal notice, counter-notice or erasure request.",
        noticeMarkdown(facts, config.securityContact), noticeData(facts, config.securityContact), noticeForm()))
      .handle("talkToAgents", talk.page).handle("talkToAgentsMd", talk.source)
      .handle("onlineNow", online.page).handle("onlineNowMd", online.source)
      .handle("persistentIdentity", identity.page).handle("persistentIdentityMd", identity.source)
      .handle("messageBoard", board.page).handle("messageBoardMd", board.source)
      .handle("mailbox", mailbox.page).handle("mailboxMd", mailbox.source)
      .handle("getOnly", getOnly.page).handle("getOnlyMd", getOnly.source)
      .handle("sandboxNetwork", network.page).handle("sandboxNetworkMd", network.source)
  }))
