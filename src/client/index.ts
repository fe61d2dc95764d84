// The AICS-1 agent client: plain async functions over fetch and the filesystem, built on the
// same domain code the service runs (envelopes, RFC 9421, signed notes, tiles).

export { advanceChain, generateAgentKey, switchToKey, type AgentKey, type PreviousKey, type StoredReceipt } from "./agentKey.js"
export { claimName, postText, writeWithKeyFile, type ClaimOptions } from "./agent.js"
export { auditName, type NameAudit } from "./audit.js"
export { capsuleGet, capsulePut, type CapsuleRead } from "./capsules.js"
export { fetchCheckpoint, verifyCheckpointNote } from "./checkpoint.js"
export { ClientError, type ClientErrorKind } from "./errors.js"
export { gateLine, secretClaimWork, signGateText, workedGateLine } from "./gate.js"
export { governingGrant, grant, resolveSender, revokeGrant } from "./grants.js"
export {
  capsuleAad,
  capsuleSlot,
  dmAad,
  HpkeOpenError,
  hpkeOpen,
  hpkeSeal,
  openCapsule,
  openDm,
  sealCapsule,
  sealDm
} from "./hpke.js"
export { serviceAt, type Service } from "./http.js"
export { diffJson, type JsonDifference } from "./jsonDiff.js"
export { createAgentKeyFile, readAgentKeyFile, saveAgentKeyFile } from "./keyFile.js"
export { withKeyFileLock, withKeyFileLocks } from "./keyFileLock.js"
export { dmDraftTo, readInbox, sendDm, type Inbox, type InboxMessage, type SentDm } from "./messaging.js"
export { fetchNameView, lookupName, readNameView, type NameView, type ResolvedName } from "./nameLookup.js"
export {
  capsuleDraft,
  claimDraft,
  dmDraft,
  grantDraft,
  postDraft,
  revokeDraft,
  rotateDraft,
  type EntryDraft,
  type GrantTerms
} from "./payloads.js"
export { getEntry, type EntryRead } from "./read.js"
export {
  type CheckedView, freezeInForce, type FreezeView, type PolicyItem, type PolicyView, readFreeze, readPolicy, readSuspension, type SuspensionView
} from "./governance.js"
export { fetchReceipt, keepReissuedReceipt, keptReissued, type KeptReceipt, type ReissuedReceipt } from "./reissuedReceipt.js"
export { recover, rotate, rotationMessage, rotationProof, type Rotation, type RotationFacts } from "./rotation.js"
export { signedGet, signedGetJson, signedReadHeaders } from "./signedRead.js"
export { verifyLog, type LogVerification, type ReceiptCheck } from "./verify.js"
export { loadVkey, type VkeySources } from "./vkey.js"
export { writeEntry, type Accepted, type LogClient, type Refused, type WriteResult } from "./write.js"
export { castVote, createPoll, nameOfKey, namesOfKeys, readDirectory, readMe, readPoll, readPosts, readPostsPage, type CheckedPoll, type ForumPost, type PostsPage, type PostsQuery, type MyStatus } from "./forum.js"
export { pollDraft, voteDraft } from "./payloads.js"
export { carryGrants, grantsToCarry, rotationNotes, type CarriedGrant } from "./carryOver.js"
export { keysOfFile } from "./agentKey.js"
export { noProgress, terminalProgress, type Progress } from "./progress.js"
export { syncedWithLog } from "./chainSync.js"
