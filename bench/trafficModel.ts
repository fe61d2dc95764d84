// What the traffic generator (bench/trafficGenerate.ts) knows of the log it writes, and what
// it writes next: a realistic mix of agents' entries, each one the log will accept.
//
// The mix, of every entry: 20% claims (a new agent joins; its key and X25519 key follow from
// its number, trafficKeys.ts), and from agents already named 30% posts and 14% replies in
// ten channels of very different traffic, 15% DMs (ciphertext bodies) under the
// recipients' grants, 6% grants (to any sender or to one, some limited in number or time),
// 1.5% polls and 8% votes, 4% capsule writes, 1% X25519 key changes and 0.5% key rotations.
// About 4.5 entries an agent, as the 46,000 agents of 206,000 entries in issue 12.
//
// Everything it knows comes from accepted leaves (`observe`), the same whether a leaf was
// just accepted or read back from a log written earlier, so a run continues a log where
// the last one stopped. It keeps one small record per agent and bounded rings of recent
// posts, grants and polls: never the leaves.
//
// What keeps every entry acceptable while thousands are in flight at once: an agent has at
// most one entry in flight (its chain); a DM's recipient has no key change in flight, and
// an agent with DMs on the way to it changes no key; a limited grant counts the DMs in
// flight under it; votes go to open polls the agent has not voted in.

import { nodeCrypto } from "../src/adapters/crypto/nodeCrypto.js"
import { utf8 } from "../src/domain/bytes.js"
import type { Ed25519 } from "../src/domain/crypto.js"
import { encodeU64 } from "../src/domain/encoding.js"
import type { Envelope } from "../src/domain/envelope/envelope.js"
import { rotationMessage } from "../src/domain/identity/possession.js"
import { agentSeed, agentX25519, capsuleSlot, kidOfSeed } from "./trafficKeys.js"

export interface Agent {
  readonly n: number
  /** Key generation: 0 from the claim, one more per key.rotate. */
  gen: number
  kid: string
  seq: number
  prev: string | null
  name: string
  /** The leaf that set the name's current X25519 key, and how many it has had. */
  x25519Index: number
  x25519Count: number
  /** An entry of this agent is in flight. */
  busy: boolean
  /** Its key.rotate or key.x25519 is in flight. */
  changingKey: boolean
  /** DMs to it in flight. */
  inbound: number
}

interface Grant {
  readonly index: number
  readonly recipient: Agent
  /** The recipient's key that signed it: a rotation retires it. */
  readonly signer: string
  readonly sender: string
  readonly limit: number | null
  /** Unix seconds. */
  readonly until: number | null
  uses: number
  inFlight: number
}

interface Poll {
  readonly index: number
  readonly closes: number
  readonly options: number
  readonly voters: Set<number>
}

export interface Plan {
  readonly agent: Agent
  readonly seed: Uint8Array
  readonly type: string
  readonly payload: Record<string, unknown>
  readonly body: Uint8Array | null
  /** Gives back what the plan reserved; called once it is answered, accepted or not. */
  readonly release: () => void
}

const CHANNELS = ["general", "research", "trading", "help-desk", "dev", "announcements", "jobs", "news", "random", "meta"]
/** Zipf-like: general takes about a third of the posts, meta about 3%. */
const CHANNEL_WEIGHTS = CHANNELS.map((_, i) => 1 / (i + 1))

const PREFIXES = [
  "acme", "nova", "orbit", "pixel", "quant", "relay", "sigma", "terra", "umbra", "vector", "atlas", "beacon", "cobalt", "delta",
  "echo", "flux", "gamma", "helix", "ion", "juno", "kite", "lumen", "mesa", "nimbus", "onyx", "prism", "quill", "rover", "sol", "tango"
]
const ROLES = [
  "scout", "analyst", "broker", "helper", "scribe", "tutor", "trader", "critic", "curator", "planner", "courier", "oracle",
  "mentor", "auditor", "builder", "finder", "keeper", "ranger", "pilot", "sage"
]
const VOCABULARY = (
  "the agent log key name post reply grant inbox message model data task result proof tile checkpoint witness search " +
  "index query latency budget policy owner channel thread vote poll option rotate recover signal market price offer " +
  "request review report summary draft plan schedule deploy test build release note question answer idea update"
).split(" ")

/** Agent n's name: a prefix and a role its number picks, then the number (so a claim read back names its agent). */
export const nameOf = (n: number): string => {
  const mixed = Math.imul(n ^ 0x9e3779b9, 0x85ebca6b) >>> 0
  return `${PREFIXES[mixed % PREFIXES.length]}-${ROLES[(mixed >>> 8) % ROLES.length]}${n}`
}
const agentOfName = (name: string): number => Number(/(\d+)$/.exec(name)?.[1])

const pick = <A>(items: ReadonlyArray<A>): A => items[Math.floor(Math.random() * items.length)]!
const between = (min: number, max: number) => min + Math.floor(Math.random() * (max - min + 1))
const weighted = (weights: ReadonlyArray<number>): number => {
  let r = Math.random() * weights.reduce((a, b) => a + b, 0)
  for (let i = 0; i < weights.length; i++) if ((r -= weights[i]!) < 0) return i
  return weights.length - 1
}

/** Text of about `bytes` bytes, unique through its tag. */
const textOf = (tag: string, bytes: number): Uint8Array => {
  let text = tag
  while (text.length < bytes) text += ` ${pick(VOCABULARY)}`
  return utf8(text)
}
const randomBytes = (size: number) => crypto.getRandomValues(new Uint8Array(size))
const hashOf = (bytes: Uint8Array): string => encodeU64(nodeCrypto.sha256(bytes))

/** A ring of the last `capacity` items: what replies, DMs and votes cite is recent. */
class Ring<A> {
  private readonly items: Array<A> = []
  private next = 0
  constructor(private readonly capacity: number, private readonly dropped?: (item: A) => void) {}
  push(item: A): void {
    if (this.items.length < this.capacity) {
      this.items.push(item)
      return
    }
    this.dropped?.(this.items[this.next]!)
    this.items[this.next] = item
    this.next = (this.next + 1) % this.capacity
  }
  sample(): A | undefined {
    return this.items.length === 0 ? undefined : pick(this.items)
  }
}

/** Tries to find a candidate this many times before giving up on an action. */
const TRIES = 8

export class TrafficModel {
  private readonly agents: Array<Agent | undefined> = []
  private readonly byKid = new Map<string, Agent>()
  private readonly posts = new Ring<{ readonly index: number; readonly channel: string }>(8192)
  private readonly grantsByIndex = new Map<number, Grant>()
  private readonly grants = new Ring<Grant>(8192, (grant) => this.grantsByIndex.delete(grant.index))
  private readonly pollsByIndex = new Map<number, Poll>()
  private readonly polls = new Ring<Poll>(256, (poll) => this.pollsByIndex.delete(poll.index))
  /** A sample of DM recipients (reservoir), for the bench's inbox reads. */
  readonly dmRecipients: Array<{ readonly agent: number; readonly gen: number; readonly kid: string }> = []
  private dmsSeen = 0
  /** The next new agent's number. */
  private nextAgent = 0

  /** `origin` and `signer` sign what an entry's payload holds (key.rotate's new_sig). */
  constructor(private readonly origin: string, private readonly signer: Ed25519) {}

  get agentCount(): number {
    return this.byKid.size
  }
  /** Agents are numbered from 0 to this (one refused claim would leave a gap). */
  get agentNumbers(): number {
    return this.nextAgent
  }
  get channels(): ReadonlyArray<string> {
    return CHANNELS
  }

  /** Folds an accepted leaf in; `prev` is the U64 of its envelope's hash. */
  observe(envelope: Envelope, index: number, prev: string): void {
    const payload = envelope.payload as Record<string, any>
    if (envelope.type === "claim" && typeof payload["x25519"] === "string") this.claimed(envelope, payload["name"], index)
    const agent = this.byKid.get(envelope.kid)
    if (agent === undefined) return
    agent.seq = envelope.seq + 1
    agent.prev = prev
    switch (envelope.type) {
      case "key.x25519":
        agent.x25519Index = index
        agent.x25519Count++
        return
      case "key.rotate":
        this.byKid.delete(agent.kid)
        agent.gen++
        agent.kid = payload["new_kid"]
        agent.seq = 0
        agent.prev = null
        this.byKid.set(agent.kid, agent)
        return
      case "post":
        this.posts.push({ index, channel: payload["channel"] })
        return
      case "grant": {
        const grant: Grant = {
          index, recipient: agent, signer: agent.kid, sender: payload["sender"], limit: payload["limit"] ?? null, until: payload["until"] ?? null,
          uses: 0, inFlight: 0
        }
        this.grantsByIndex.set(index, grant)
        this.grants.push(grant)
        return
      }
      case "dm": {
        const grant = this.grantsByIndex.get(payload["grant_index"])
        if (grant !== undefined) grant.uses++
        const recipient = this.byKid.get(payload["to"])
        if (recipient !== undefined) this.sampleRecipient(recipient)
        return
      }
      case "poll": {
        const poll: Poll = { index, closes: payload["closes"], options: payload["options"].length, voters: new Set() }
        this.pollsByIndex.set(index, poll)
        this.polls.push(poll)
        return
      }
      case "vote":
        this.pollsByIndex.get(payload["poll_index"])?.voters.add(agent.n)
        return
    }
  }

  private claimed(envelope: Envelope, name: string, index: number): void {
    const n = agentOfName(name)
    // Only this generator's agents (the bench's write load signs with keys of its own).
    if (Number.isNaN(n) || nameOf(n) !== name) return
    const agent = this.agents[n] ?? this.newAgent(n, envelope.kid)
    agent.x25519Index = index
    this.byKid.set(agent.kid, agent)
    this.nextAgent = Math.max(this.nextAgent, n + 1)
  }

  private newAgent(n: number, kid: string): Agent {
    const agent: Agent = { n, gen: 0, kid, seq: 0, prev: null, name: nameOf(n), x25519Index: -1, x25519Count: 0, busy: false, changingKey: false, inbound: 0 }
    this.agents[n] = agent
    return agent
  }

  private sampleRecipient(agent: Agent): void {
    const sample = { agent: agent.n, gen: agent.gen, kid: agent.kid }
    this.dmsSeen++
    if (this.dmRecipients.length < 256) this.dmRecipients.push(sample)
    else if (Math.random() < 256 / this.dmsSeen) this.dmRecipients[Math.floor(Math.random() * 256)] = sample
  }

  /** A named agent with nothing in flight, or undefined. */
  private freeAgent(): Agent | undefined {
    if (this.nextAgent === 0) return undefined
    for (let i = 0; i < TRIES; i++) {
      // A tenth of the picks go to the busiest hundredth of the agents.
      const range = Math.random() < 0.1 ? Math.max(1, Math.ceil(this.nextAgent / 100)) : this.nextAgent
      const agent = this.agents[Math.floor(Math.random() * range)]
      if (agent !== undefined && !agent.busy && this.byKid.get(agent.kid) === agent) return agent
    }
    return undefined
  }

  /** The next entry to write at `now` (Unix seconds); its agent is busy until `release`. */
  next(now: number): Plan {
    const roll = Math.random()
    if (roll < 0.20) return this.claim()
    const planned = roll < 0.50 ? this.post(now)
      : roll < 0.64 ? this.reply()
      : roll < 0.79 ? this.dm(now)
      : roll < 0.85 ? this.grant(now)
      : roll < 0.865 ? this.poll(now)
      : roll < 0.945 ? this.vote(now)
      : roll < 0.985 ? this.capsule()
      : roll < 0.995 ? this.x25519()
      : this.rotate()
    return planned ?? this.post(now) ?? this.claim()
  }

  private plan(agent: Agent, type: string, payload: Record<string, unknown>, body: Uint8Array | null, release?: () => void): Plan {
    agent.busy = true
    return {
      agent, seed: agentSeed(agent.n, agent.gen), type, payload, body,
      release: () => {
        agent.busy = false
        release?.()
      }
    }
  }

  private claim(): Plan {
    const n = this.nextAgent++
    const seed = agentSeed(n, 0)
    const agent = this.newAgent(n, kidOfSeed(seed))
    // Every tenth agent names a recovery key, as a careful operator would.
    const recovery = n % 10 === 0 ? { recovery: kidOfSeed(agentSeed(n, -1)) } : {}
    return this.plan(agent, "claim", { name: agent.name, x25519: agentX25519(n, 0), ...recovery }, null)
  }

  private post(now: number): Plan | undefined {
    const agent = this.freeAgent()
    if (agent === undefined) return undefined
    const body = textOf(`${agent.name} #${agent.seq} at ${now}:`, between(40, 900))
    return this.plan(agent, "post", { channel: CHANNELS[weighted(CHANNEL_WEIGHTS)], body_hash: hashOf(body), size: body.length }, body)
  }

  private reply(): Plan | undefined {
    const parent = this.posts.sample()
    const agent = parent === undefined ? undefined : this.freeAgent()
    if (parent === undefined || agent === undefined) return undefined
    const body = textOf(`re ${parent.index} from ${agent.name} #${agent.seq}:`, between(20, 500))
    return this.plan(agent, "post", { channel: parent.channel, body_hash: hashOf(body), size: body.length, reply_to: parent.index }, body)
  }

  private grant(now: number): Plan | undefined {
    const agent = this.freeAgent()
    if (agent === undefined) return undefined
    // Half to anyone, half to one agent; a third limited in number, a third in time.
    const to = Math.random() < 0.5 ? undefined : this.agents[Math.floor(Math.random() * this.nextAgent)]
    const roll = Math.random()
    return this.plan(agent, "grant", {
      sender: to === undefined ? "*" : to.kid,
      use: "dm",
      ...(roll < 1 / 3 ? { limit: between(5, 50) } : roll < 2 / 3 ? { until: now + between(7, 60) * 86_400 } : {})
    }, null)
  }

  private dm(now: number): Plan | undefined {
    for (let i = 0; i < TRIES; i++) {
      const grant = this.grants.sample()
      if (grant === undefined) return undefined
      const recipient = grant.recipient
      if (recipient.kid !== grant.signer || recipient.changingKey || recipient.x25519Index < 0) continue
      if (grant.limit !== null && grant.uses + grant.inFlight >= grant.limit) continue
      if (grant.until !== null && grant.until <= now + 600) continue
      const sender = grant.sender === "*" ? this.freeAgent() : this.byKid.get(grant.sender)
      if (sender === undefined || sender.busy || sender === recipient) continue
      grant.inFlight++
      recipient.inbound++
      const ciphertext = randomBytes(between(80, 1500))
      return this.plan(sender, "dm", {
        to: recipient.kid, grant_index: grant.index, ct_hash: hashOf(ciphertext), size: ciphertext.length, x25519_index: recipient.x25519Index
      }, ciphertext, () => {
        grant.inFlight--
        recipient.inbound--
      })
    }
    return undefined
  }

  private poll(now: number): Plan | undefined {
    const agent = this.freeAgent()
    if (agent === undefined) return undefined
    const body = textOf(`${agent.name} asks #${agent.seq}:`, between(30, 300))
    const options = Array.from({ length: between(2, 5) }, (_, i) => `option ${i + 1}: ${pick(VOCABULARY)}`)
    return this.plan(agent, "poll", {
      channel: CHANNELS[weighted(CHANNEL_WEIGHTS)], body_hash: hashOf(body), size: body.length, options, closes: now + between(1, 14) * 86_400
    }, body)
  }

  private vote(now: number): Plan | undefined {
    for (let i = 0; i < TRIES; i++) {
      const poll = this.polls.sample()
      const agent = poll === undefined ? undefined : this.freeAgent()
      if (poll === undefined) return undefined
      if (agent === undefined || poll.closes <= now + 600 || poll.voters.has(agent.n)) continue
      return this.plan(agent, "vote", { poll_index: poll.index, option: Math.floor(Math.random() * poll.options) }, null)
    }
    return undefined
  }

  private capsule(): Plan | undefined {
    const agent = this.freeAgent()
    if (agent === undefined) return undefined
    const ciphertext = randomBytes(between(200, 3000))
    return this.plan(agent, "capsule", { slot: capsuleSlot(agent.n, agent.gen, between(0, 3)), ct_hash: hashOf(ciphertext), size: ciphertext.length }, ciphertext)
  }

  /** An agent free for a key change: nothing in flight from it or to it. */
  private keyChanger(): Agent | undefined {
    const agent = this.freeAgent()
    return agent === undefined || agent.inbound > 0 ? undefined : agent
  }

  private x25519(): Plan | undefined {
    const agent = this.keyChanger()
    if (agent === undefined) return undefined
    agent.changingKey = true
    return this.plan(agent, "key.x25519", { name: agent.name, x25519: agentX25519(agent.n, agent.x25519Count + 1) }, null, () => {
      agent.changingKey = false
    })
  }

  private rotate(): Plan | undefined {
    const agent = this.keyChanger()
    if (agent === undefined) return undefined
    agent.changingKey = true
    const next = agentSeed(agent.n, agent.gen + 1)
    const newKid = kidOfSeed(next)
    // The new key agrees to take the name over from the current one (identity/possession.ts).
    const newSig = encodeU64(this.signer.sign(next, rotationMessage(agent.name, newKid, this.origin, agent.kid)))
    return this.plan(agent, "key.rotate", { name: agent.name, new_kid: newKid, new_sig: newSig }, null, () => {
      agent.changingKey = false
    })
  }
}

