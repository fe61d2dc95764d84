// Moving a name to a new Ed25519 key (docs/spec/profile.md section 5, key.rotate):
//   rotate   signed by the name's current key (the key file's);
//   recover  signed by the name's recovery key (a separate key file, named in the claim).
// Either way the NEW key proves possession: it signs JCS({"name", "new_kid", "origin",
// "prev_kid"}) and the payload carries U64 of that signature as `new_sig`; prev_kid is the
// key the name moves away from, so the proof cannot be replayed for another move.
//
// The new key's seed is saved in the key file (`next`) before the entry is sent: if the log
// accepts the entry and the process dies before the switch is saved, the key the log now
// names is still in the file, and the next rotate or recover finishes the switch. After the
// switch the file acts with the new key (seq 0, prev null); the old key moves to `previous`.
// Both run under the key file's lock (keyFileLock.ts) from the first read to the last save,
// so no other write with the file can slip in between the saves of `next` and the switch;
// recover holds the recovery key file's lock too, both taken in one order (withKeyFileLocks).

import { encodeU64 } from "../domain/encoding.js"
import { rotationMessage as domainRotationMessage } from "../domain/identity/possession.js"
import { saveAfterAccepted, writeWithKeyFile } from "./agent.js"
import { kidOfSeed, switchToKey, type AgentKey, type PreviousKey } from "./agentKey.js"
import { crypto, randomBytes } from "./crypto.js"
import { usageError } from "./errors.js"
import { readAgentKeyFile, saveAgentKeyFile } from "./keyFile.js"
import { withKeyFileLock, withKeyFileLocks } from "./keyFileLock.js"
import { keyNameFacts } from "./forum.js"
import { fetchNameView } from "./nameLookup.js"
import { checkedName, rotateDraft } from "./payloads.js"
import { writeEntry, type LogClient, type WriteResult } from "./write.js"

export interface RotationFacts {
  readonly name: string
  readonly origin: string
  /** The key the name moves away from (its current key). */
  readonly prevKid: string
}

/** The bytes the new key signs: JCS({"name","new_kid","origin","prev_kid"}) (the sequencer's own function). */
export const rotationMessage = (facts: RotationFacts, newKid: string): Uint8Array =>
  domainRotationMessage(facts.name, newKid, facts.origin, facts.prevKid)

/** The new key's kid and its proof of possession (U64 of the Ed25519 signature). */
export const rotationProof = (newSeed: Uint8Array, facts: RotationFacts): { readonly newKid: string; readonly newSig: string } => {
  const newKid = kidOfSeed(newSeed)
  return { newKid, newSig: encodeU64(crypto.ed25519.sign(newSeed, rotationMessage(facts, newKid))) }
}

export interface Rotation {
  readonly name: string
  readonly oldKid: string
  readonly newKid: string
  /**
   * The key.rotate write; null when nothing was written now because the log already names
   * the pending key (an earlier run's entry got through before its switch was saved), and
   * the key file was switched to it.
   */
  readonly result: WriteResult | null
}

/**
 * The name to move: --name, else the one the key file records, else (a file made before
 * names were recorded) the one the log says the key holds or held. `recover` takes a name
 * the key no longer acts for (someone else rotated it: that is what recovery is for);
 * `rotate` needs the key to act for it still.
 */
const nameOf = async (client: LogClient, key: AgentKey, name: string | undefined, how: PreviousKey["how"]): Promise<string> => {
  if (name !== undefined || key.name !== null) return checkedName(name ?? key.name!)
  const held = await keyNameFacts(client, key.kid)
  if (held === null || held.name === null) {
    throw usageError(`${key.kid} acts for no name, and a rotation moves a name to a new key: claim one first (aics claim <name>)`)
  }
  if (how === "rotate" && !held.current) {
    throw usageError(`${key.kid} was retired from ${held.name}${held.retiredAt === null ? "" : ` by leaf ${held.retiredAt}`}: a retired key rotates nothing; the name's recovery key can take it back (aics recover --recovery-key <file>)`)
  }
  return checkedName(held.name)
}

/** The pending new key of the file, chosen and saved now if there is none. */
const pendingKey = async (keyPath: string, key: AgentKey): Promise<{ key: AgentKey; seed: Uint8Array }> => {
  if (key.next !== null) return { key, seed: key.next }
  const seed = randomBytes(32)
  const withNext = { ...key, next: seed }
  await saveAgentKeyFile(keyPath, withNext)
  return { key: withNext, seed }
}

/** After a refusal: whether the log already names the pending key (an earlier run got through). */
const alreadyMoved = async (client: LogClient, name: string, newKid: string): Promise<boolean> => {
  try {
    return (await fetchNameView(client, name)).view.kid === newKid
  } catch {
    return false
  }
}

const finish = async (
  keyPath: string,
  key: AgentKey,
  seed: Uint8Array,
  name: string,
  retiredBy: number | null,
  how: PreviousKey["how"]
): Promise<void> => saveAgentKeyFile(keyPath, switchToKey({ ...key, name }, seed, retiredBy, how))

/** Moves the key file's name to a new key, signed by the current key. */
export const rotate = (client: LogClient, keyPath: string, options: { readonly name?: string | undefined } = {}): Promise<Rotation> =>
  withKeyFileLock(keyPath, () => rotateHoldingLock(client, keyPath, options))

const rotateHoldingLock = async (client: LogClient, keyPath: string, options: { readonly name?: string | undefined }): Promise<Rotation> => {
  const read = await readAgentKeyFile(keyPath)
  const name = await nameOf(client, read, options.name, "rotate")
  const { key, seed } = await pendingKey(keyPath, read)
  const { newKid, newSig } = rotationProof(seed, { name, origin: client.vkey.name, prevKid: key.kid })
  const draft = rotateDraft(name, newKid, newSig)
  const result = await writeEntry(client, key, draft.type, draft.payload, draft.body)
  if (result._tag === "Accepted") {
    // Save the old key's advanced chain within the switch: one durable write.
    const switched = switchToKey({ ...result.key, name }, seed, result.receipt.index, "rotate")
    await saveAfterAccepted(keyPath, result, switched)
    return { name, oldKid: key.kid, newKid, result }
  }
  if (await alreadyMoved(client, name, newKid)) {
    await finish(keyPath, key, seed, name, null, "rotate")
    return { name, oldKid: key.kid, newKid, result: null }
  }
  return { name, oldKid: key.kid, newKid, result }
}

/**
 * Moves the name to a new key with the recovery key (its own key file, made by keygen and
 * named in the claim's `recovery`), then switches the agent's key file to the new key. The
 * key moved away from is the name's current key as its view says (it may not be the file's,
 * if someone else rotated the name). Both key files' locks are taken before the first read,
 * in the order of their real paths (withKeyFileLocks), so recover(A, B) and recover(B, A)
 * at once cannot each hold one and wait for the other; the recovery key file's write then
 * runs under the lock already held.
 */
export const recover = (
  client: LogClient,
  keyPath: string,
  recoveryKeyPath: string,
  options: { readonly name?: string | undefined } = {}
): Promise<Rotation> => withKeyFileLocks([keyPath, recoveryKeyPath], () => recoverHoldingLock(client, keyPath, recoveryKeyPath, options))

const recoverHoldingLock = async (
  client: LogClient,
  keyPath: string,
  recoveryKeyPath: string,
  options: { readonly name?: string | undefined }
): Promise<Rotation> => {
  const read = await readAgentKeyFile(keyPath)
  const recoveryKey = await readAgentKeyFile(recoveryKeyPath)
  if (recoveryKey.kid === read.kid) throw usageError("the recovery key file holds the same key as the key file")
  const name = await nameOf(client, read, options.name, "recover")
  const { view } = await fetchNameView(client, name)
  const { key, seed } = await pendingKey(keyPath, read)
  const { newKid, newSig } = rotationProof(seed, { name, origin: client.vkey.name, prevKid: view.kid })
  if (view.kid === newKid) {
    await finish(keyPath, key, seed, name, null, "recover")
    return { name, oldKid: key.kid, newKid, result: null }
  }
  const result = await writeWithKeyFile(client, recoveryKeyPath, () => rotateDraft(name, newKid, newSig))
  if (result._tag === "Accepted") await finish(keyPath, key, seed, name, result.receipt.index, "recover")
  return { name, oldKid: view.kid, newKid, result }
}
