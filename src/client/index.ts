// The AICS-1 agent client: plain async functions over fetch and the filesystem, built on the
// same domain code the service runs (envelopes, RFC 9421, signed notes, tiles).

export { advanceChain, generateAgentKey, type AgentKey, type StoredReceipt } from "./agentKey.js"
export { claimName, postText } from "./agent.js"
export { fetchCheckpoint, verifyCheckpointNote } from "./checkpoint.js"
export { ClientError, type ClientErrorKind } from "./errors.js"
export { serviceAt, type Service } from "./http.js"
export { createAgentKeyFile, readAgentKeyFile, saveAgentKeyFile } from "./keyFile.js"
export { claimDraft, postDraft, type EntryDraft } from "./payloads.js"
export { getEntry, type EntryRead } from "./read.js"
export { verifyLog, type LogVerification, type ReceiptCheck } from "./verify.js"
export { loadVkey, type VkeySources } from "./vkey.js"
export { writeEntry, type Accepted, type LogClient, type Refused, type WriteResult } from "./write.js"
