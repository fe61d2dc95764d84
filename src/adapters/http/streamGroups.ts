// The live subscribers of GET /v2/stream grouped by filter, and the groups indexed by what
// their filter names, so a dispatch costs one pass over the page's events whatever the
// number of subscribers, and one Buffer per group the page touches (sseWire.ts), written
// to every live member of that group.
//
// A group whose filter names a recipient (`to`) is found from the event's `to`, one that
// names a channel from the event's channel, the others (no filter, or types only: few
// distinct ones) are tried on every event. So ten thousand `aics watch --inbox` streams,
// each its own group, cost an event one map look-up, not ten thousand filter checks; and a
// dispatch allocates nothing per subscriber.

import { matches, type LeafEvent, type StreamFilter } from "../../domain/stream/logEvents.js"

export interface Group<M> {
  readonly key: string
  readonly filter: StreamFilter
  readonly members: Set<M>
  /** The events of the current dispatch this group's filter takes, in log order. */
  readonly events: Array<LeafEvent>
  /** The dispatch `events` belongs to. */
  round: number
}

/** One key per distinct filter: subscribers asking the same thing share a group. */
export const filterKey = (filter: StreamFilter): string =>
  JSON.stringify([filter.types === undefined ? null : [...filter.types].sort(), filter.channel ?? null, filter.to ?? null])

export class StreamGroups<M> {
  private readonly groups = new Map<string, Group<M>>()
  private readonly byTo = new Map<string, Set<Group<M>>>()
  private readonly byChannel = new Map<string, Set<Group<M>>>()
  private readonly broad = new Set<Group<M>>()
  private round = 0

  /** Adds a live member to the group of its filter (made on first need), and returns that group. */
  join(filter: StreamFilter, member: M): Group<M> {
    const key = filterKey(filter)
    let group = this.groups.get(key)
    if (group === undefined) {
      group = { key, filter, members: new Set(), events: [], round: -1 }
      this.groups.set(key, group)
      this.indexOf(group).add(group)
    }
    group.members.add(member)
    return group
  }

  /** Removes the member; a group left empty is forgotten. */
  leave(group: Group<M>, member: M): void {
    group.members.delete(member)
    if (group.members.size > 0 || this.groups.get(group.key) !== group) return
    this.groups.delete(group.key)
    const index = this.indexOf(group)
    index.delete(group)
    if (index !== this.broad && index.size === 0) {
      if (group.filter.to !== undefined) this.byTo.delete(group.filter.to)
      else if (group.filter.channel !== undefined) this.byChannel.delete(group.filter.channel)
    }
  }

  /**
   * Sorts the page's events into the groups whose filter takes them (each such group's
   * `events`), and returns those groups: the only ones this page has anything for.
   */
  route(page: ReadonlyArray<LeafEvent>): ReadonlyArray<Group<M>> {
    const round = ++this.round
    const touched: Array<Group<M>> = []
    const take = (group: Group<M>, event: LeafEvent) => {
      if (group.members.size === 0 || !matches(group.filter, event)) return
      if (group.round !== round) {
        group.round = round
        group.events.length = 0
        touched.push(group)
      }
      group.events.push(event)
    }
    for (const event of page) {
      if (event.to !== undefined) for (const group of this.byTo.get(event.to) ?? []) take(group, event)
      if (event.channel !== undefined) for (const group of this.byChannel.get(event.channel) ?? []) take(group, event)
      for (const group of this.broad) take(group, event)
    }
    return touched
  }

  /** The index a group is found in: by recipient, else by channel, else tried on every event. */
  private indexOf(group: Group<M>): Set<Group<M>> {
    const { to, channel } = group.filter
    if (to !== undefined) return this.setIn(this.byTo, to)
    if (channel !== undefined) return this.setIn(this.byChannel, channel)
    return this.broad
  }

  private setIn(index: Map<string, Set<Group<M>>>, key: string): Set<Group<M>> {
    let set = index.get(key)
    if (set === undefined) {
      set = new Set()
      index.set(key, set)
    }
    return set
  }
}
