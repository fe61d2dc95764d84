// The PostgreSQL schema of the storage ports, as named migrations in order, run by
// PgMigrator at every start (PgStorage.ts). Tables are created unqualified, so they land in
// the first schema of the connection's search_path (tests give each suite its own).
//
// Running them is idempotent and safe with several processes starting at once:
//   1. aics_migrations (the migrator's table) is created if missing, in a transaction
//      holding an advisory lock for the schema: the migrator's own check-then-create is not
//      atomic, and two nodes starting together on an empty database would both create it;
//   2. PgMigrator locks aics_migrations (ACCESS EXCLUSIVE) in one transaction, runs the
//      migrations above the latest recorded id, records them and commits: a second node
//      waits for the lock, then finds nothing to do. A migration that fails rolls back
//      with the rest of its transaction.
// A new migration takes the next number; a migration, once released, never changes.

import * as NodeContext from "@effect/platform-node/NodeContext"
import * as SqlClient from "@effect/sql/SqlClient"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as PgMigrator from "@effect/sql-pg/PgMigrator"
import { Effect } from "effect"
import { StorageError } from "../../ports/StorageError.js"
import { storage } from "./pgValues.js"

export const MIGRATIONS_TABLE = "aics_migrations"

const statements = (...ddl: ReadonlyArray<string>): Effect.Effect<void, unknown, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.forEach(ddl, (statement) => sql.unsafe(statement), { discard: true }))

/**
 * A block that runs `before`, then, when the server has pg_trgm's operator class (in
 * whichever schema installed it), the index `create`: a format() string whose %I is that
 * schema. Without pg_trgm the searches that would use it scan, and answer the same.
 */
const trigramIndex = (before: string, create: string): string => `DO $$
    DECLARE trgm_schema text;
    BEGIN
      ${before}
      SELECT n.nspname INTO trgm_schema FROM pg_opclass c JOIN pg_namespace n ON n.oid = c.opcnamespace
        WHERE c.opcname = 'gin_trgm_ops' LIMIT 1;
      IF trgm_schema IS NOT NULL THEN
        EXECUTE format('${create}', trgm_schema);
      END IF;
    END $$`

export const migrations: Record<string, Effect.Effect<void, unknown, SqlClient.SqlClient>> = {
  // The log (PgLogStore.ts). The head row holds the committed size: appends lock it, so
  // two writers never both append at the same position. Leaves and stored hashes are
  // addressed by position; findLeaf reads the first index of a leaf hash from the index.
  "0001_log": statements(
    `CREATE TABLE aics_log_head (
      only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
      size bigint NOT NULL CHECK (size >= 0)
    )`,
    `INSERT INTO aics_log_head (only_row, size) VALUES (true, 0)`,
    `CREATE TABLE aics_leaves (
      idx bigint PRIMARY KEY CHECK (idx >= 0),
      bytes bytea NOT NULL CHECK (octet_length(bytes) <= 65535),
      leaf_hash bytea NOT NULL CHECK (octet_length(leaf_hash) = 32)
    )`,
    `CREATE INDEX aics_leaves_by_hash ON aics_leaves (leaf_hash, idx)`,
    `CREATE TABLE aics_hashes (
      idx bigint PRIMARY KEY CHECK (idx >= 0),
      hash bytea NOT NULL CHECK (octet_length(hash) = 32)
    )`
  ),
  // Off-leaf bodies by SHA-256 (PgBodyStore.ts).
  "0002_bodies": statements(
    `CREATE TABLE aics_bodies (
      digest bytea PRIMARY KEY CHECK (octet_length(digest) = 32),
      bytes bytea NOT NULL
    )`
  ),
  // The replay store (PgNonceStore.ts): bytea, not text, since the port takes any string,
  // NUL included, which text refuses. Expired rows are deleted by `until`. UNLOGGED: see
  // PgNonceStore.ts for why it need not survive a database crash, and what it saves.
  "0003_nonces": statements(
    `CREATE UNLOGGED TABLE aics_nonces (
      keyid bytea NOT NULL,
      nonce bytea NOT NULL,
      until bigint NOT NULL,
      PRIMARY KEY (keyid, nonce)
    )`,
    `CREATE INDEX aics_nonces_by_until ON aics_nonces (until)`
  ),
  // Inbox read cursors (PgReadCursors.ts).
  "0004_read_cursors": statements(
    `CREATE TABLE aics_read_cursors (
      kid text PRIMARY KEY,
      idx bigint NOT NULL
    )`
  ),
  // Submissions handed by one process to the one that sequences (PgCoordination.ts):
  // waiting while claimed_at is null, answered once outcome is set.
  "0005_relay": statements(
    `CREATE TABLE aics_relay (
      id bigserial PRIMARY KEY,
      envelope_jcs text NOT NULL,
      body bytea,
      claimed_at bigint,
      outcome jsonb,
      answered_at timestamp with time zone
    )`,
    `CREATE INDEX aics_relay_waiting ON aics_relay (id) WHERE claimed_at IS NULL`
  ),
  // Published tiles and the checkpoint (PgTileSink.ts), so every process serves the same.
  "0006_tiles": statements(
    `CREATE TABLE aics_tiles (
      path text PRIMARY KEY,
      bytes bytea NOT NULL
    )`,
    `CREATE TABLE aics_checkpoint (
      only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
      note bytea NOT NULL
    )`
  ),
  // The off-log stores, so that every node serves the same: the notice register
  // (PgNoticeRegister.ts; text and contact in columns of their own, so a purge sets them to
  // NULL; seq keeps the order notices were taken; purge_due is set on closing), the
  // contribution intents (PgContributionIntents.ts; indexed for reserve's two checks) and
  // the owner's request statistics (PgStatsStore.ts; one row per counter, added to).
  "0007_off_log": statements(
    `CREATE TABLE aics_notices (
      seq bigserial PRIMARY KEY,
      report_id text NOT NULL UNIQUE,
      status text NOT NULL CHECK (status IN ('open', 'closed')),
      purge_due bigint,
      record jsonb NOT NULL,
      text jsonb,
      contact jsonb
    )`,
    `CREATE INDEX aics_notices_by_status ON aics_notices (status, seq)`,
    `CREATE TABLE aics_intents (
      intent_id text PRIMARY KEY,
      network text NOT NULL,
      name text NOT NULL,
      units text NOT NULL,
      expires bigint NOT NULL,
      intent jsonb NOT NULL,
      credit_index bigint
    )`,
    `CREATE INDEX aics_intents_by_units ON aics_intents (network, units, expires)`,
    `CREATE INDEX aics_intents_by_owner ON aics_intents (network, name, expires)`,
    `CREATE TABLE aics_request_stats (
      key text PRIMARY KEY,
      count bigint NOT NULL CHECK (count >= 0)
    )`
  ),
  // The verifiers of secret-bound names (PgGateSecrets.ts; docs/protocol.md 17.5), off the
  // log: one row per name and the claim leaf that bound it.
  "0008_gate_secrets": statements(
    `CREATE TABLE aics_gate_secrets (
      name text NOT NULL,
      claim_index bigint NOT NULL,
      verifier text NOT NULL,
      PRIMARY KEY (name, claim_index)
    )`
  ),
  // A purged notice keeps its row but not its report id (docs/spec/service.md item 9: the report id
  // is deleted with the text and contact 12 months after closing): report_id may be NULL,
  // and UNIQUE still holds among the ids that remain.
  "0009_notice_report_id_deleted": statements(
    `ALTER TABLE aics_notices ALTER COLUMN report_id DROP NOT NULL`
  ),
  // The fencing token of the sequencing lease (leaseEpoch.ts): one row, its epoch raised by
  // each new holder; the body store's deletes lock it to check theirs is still the latest.
  "0010_lease_epoch": statements(
    `CREATE TABLE aics_lease_epoch (
      only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
      epoch bigint NOT NULL CHECK (epoch >= 0)
    )`,
    `INSERT INTO aics_lease_epoch (only_row, epoch) VALUES (true, 0)`
  ),
  // The fence a relayed submission was claimed under (PgCoordination.ts): release and answer
  // touch only the rows of the caller's epoch. Rows claimed before this migration have none;
  // the next holder's orphans stamps them with its own.
  "0011_relay_claimed_epoch": statements(
    `ALTER TABLE aics_relay ADD COLUMN claimed_epoch bigint`
  ),
  // The projection store (PgProjectionStore.ts, issue 12): the names the log's leaves
  // established and the number of leaves folded into them. The directory's search by a part
  // of a name uses a pg_trgm index when the server has the extension (it is created in
  // public, once per database, whichever schema migrates first); without it the same
  // query scans, and answers the same.
  "0012_projection_names": statements(
    `CREATE TABLE aics_projection_meta (
      only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
      folded bigint NOT NULL CHECK (folded >= 0),
      last_leaf bytea CHECK (octet_length(last_leaf) = 32)
    )`,
    `INSERT INTO aics_projection_meta (only_row, folded) VALUES (true, 0)`,
    `CREATE TABLE aics_projection_names (
      name text PRIMARY KEY,
      claim_index bigint NOT NULL UNIQUE,
      tier text NOT NULL,
      kid text NOT NULL,
      kid_index bigint NOT NULL,
      x25519 text NOT NULL,
      x25519_index bigint,
      recovery text,
      events jsonb NOT NULL
    )`,
    trigramIndex(`BEGIN
        CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;
      EXCEPTION WHEN others THEN
        RAISE NOTICE 'pg_trgm is not available: the directory search scans';
      END;`, "CREATE INDEX aics_projection_names_trgm ON aics_projection_names USING gin (name %I.gin_trgm_ops)")
  ),
  // The witness (PgWitnessState.ts): the last checkpoint cosigned per witnessed log.
  "0013_witness_state": statements(
    `CREATE TABLE aics_witness_state (
      origin text PRIMARY KEY,
      size bigint NOT NULL CHECK (size >= 0),
      root_hash bytea NOT NULL CHECK (octet_length(root_hash) = 32),
      note bytea NOT NULL,
      updated_at timestamp with time zone NOT NULL DEFAULT now()
    )`
  ),
  // The cosignatures this log collected (PgCosignatures.ts): the latest per witness.
  "0014_cosignatures": statements(
    `CREATE TABLE aics_cosignatures (
      witness text PRIMARY KEY,
      size bigint NOT NULL CHECK (size >= 0),
      line text NOT NULL,
      cosigned_at bigint NOT NULL
    )`
  ),
  // The rest of the log's state in the projection store (PgProjectionStore.ts, issue 12;
  // src/adapters/projection/stateRows.ts): the rows of the map areas and the resident parts,
  // and the list areas' elements by position.
  "0015_projection_state": statements(
    `CREATE TABLE aics_state_rows (
      area text NOT NULL,
      key text NOT NULL,
      value text NOT NULL,
      PRIMARY KEY (area, key)
    )`,
    `CREATE TABLE aics_state_lists (
      area text NOT NULL,
      key text NOT NULL,
      n bigint NOT NULL,
      value text NOT NULL,
      PRIMARY KEY (area, key, n)
    )`
  ),
  // pg_trgm's GIN operator class serves `=` too (pg_trgm 1.4), and the planner, misled by
  // its estimate, took it over the primary key for `name IN (...)`: 7 ms a name at 46,000
  // names, growing with the table, a second or more per batch of claims and posts. The
  // search index is therefore on lower(name) (the same text: names are lowercase,
  // docs/spec/profile.md section 2), which the directory's LIKE names and an equality on
  // `name` cannot use.
  "0016_projection_names_search_index": statements(
    trigramIndex("DROP INDEX IF EXISTS aics_projection_names_trgm;",
      "CREATE INDEX aics_projection_names_search ON aics_projection_names USING gin (lower(name) %I.gin_trgm_ops)")
  ),
  // Each agent's latest public leaf, the row area `activity` (it was a resident part, held
  // whole in memory and copied to rows of area 'activity'), in a table of its own: /online
  // reads the agents of a window from the index on when and at which leaf each last wrote
  // (PgProjectionStore recentActivity), not every agent. The old copies go; the state's new
  // layout (stateAreas.ts STATE_LAYOUT 5) has the projection rebuilt at the next start.
  "0017_state_activity": statements(
    `CREATE TABLE aics_state_activity (
      actor text PRIMARY KEY,
      logged bigint NOT NULL,
      leaf bigint NOT NULL,
      value text NOT NULL
    )`,
    "CREATE INDEX aics_state_activity_recent ON aics_state_activity (logged, leaf)",
    "DELETE FROM aics_state_rows WHERE area = 'activity'"
  ),
  // The directory's search walks names in claim order and, for a rare part, asks a trigram
  // index (pgNameSearch.ts). Walking aics_projection_names read ~500-byte rows (their key
  // events) that the buffer cache could not hold at a million names: 2.6 us a row, 0.5 s
  // for a rare part. This table holds the claim index and the name alone (a name keeps its
  // claim index for good), ~50 bytes a row, and the trigram index moves onto it. pg_trgm
  // splits words at anything but a letter or digit, so a part with a hyphen ("m-c") gave
  // the index only one-letter words to look for (151,000 candidates at a million names):
  // the index is of the name with each hyphen made an x (a name is a-z, 0-9 and hyphens,
  // docs/spec/profile.md section 2), and the search checks the name itself against the part
  // after it. The index takes each new name at once (fastupdate off): a pending list, merged
  // only by a vacuum, would otherwise be read whole by every search; claims are few beside
  // searches.
  "0018_projection_name_search": statements(
    `CREATE TABLE aics_projection_name_search (
      claim_index bigint PRIMARY KEY,
      name text NOT NULL
    )`,
    `INSERT INTO aics_projection_name_search (claim_index, name) SELECT claim_index, name FROM aics_projection_names`,
    trigramIndex("DROP INDEX IF EXISTS aics_projection_names_search;",
      "CREATE INDEX aics_projection_name_search_trgm ON aics_projection_name_search USING gin (translate(name, ''-'', ''x'') %I.gin_trgm_ops) WITH (fastupdate = off)")
  ),
  // /online's count of a window walked every agent active in it from 0017's index, a heap
  // visit each (202,000 in a day's window at a million entries: p99 247 ms). The agents by
  // the minute of their latest public leaf (projection/stateRows.ts ACTIVITY_MINUTE_MS),
  // kept by each fold commit, make it a sum of at most a window's minutes.
  "0019_state_activity_minutes": statements(
    `CREATE TABLE aics_state_activity_minutes (
      minute bigint PRIMARY KEY,
      agents bigint NOT NULL
    )`,
    `INSERT INTO aics_state_activity_minutes (minute, agents)
      SELECT logged / 60000, count(*) FROM aics_state_activity GROUP BY logged / 60000`
  ),
  // The body a leaf names (AppendedLeaf.body), kept beside it so an entry's read joins
  // aics_bodies in the same statement (PgLogStore readEntryAndHashes): one round trip for
  // GET /v2/entries/{i} instead of two. Leaves appended before have NULL, and their reader
  // asks the body store as before. Adding nullable columns rewrites nothing.
  "0020_leaf_body": statements(
    `ALTER TABLE aics_leaves
      ADD COLUMN body_digest bytea CHECK (octet_length(body_digest) = 32),
      ADD COLUMN body_rides boolean,
      ADD CONSTRAINT aics_leaves_body_both CHECK ((body_digest IS NULL) = (body_rides IS NULL))`
  ),
  // The names whose claim named a key as recovery key, in claim order: the key view lists
  // them (PgProjectionStore recoveryNames). The rows hold the recovery key already, so the
  // index is all an upgrade needs: no rebuild of the projection.
  "0021_projection_names_by_recovery": statements(
    `CREATE INDEX aics_projection_names_by_recovery ON aics_projection_names (recovery, claim_index) INCLUDE (name)
      WHERE recovery IS NOT NULL`
  ),
  // The witnesses' another-history alarms (PgCosignatures.ts), at most one per witness: the
  // sequencing node raises and clears them, every node's /healthz reads them, so an alarm
  // shows on every node and outlives a lease handover. An upgrade starts with none (the
  // alarm lived in the sequencing process's memory): the new holder finds it out anew.
  "0022_witness_alarms": statements(
    `CREATE TABLE aics_witness_alarms (
      witness text PRIMARY KEY,
      detail text NOT NULL,
      raised_at bigint NOT NULL
    )`
  ),
  // The size a witness said it cosigned, when above the log's (AnotherHistoryAlarm
  // .witnessSize): every node reads it and finds the log diverged while the log holds fewer
  // leaves, so no node accepts a write or signs a checkpoint of another history. NULL for
  // the alarms of other kinds, and for those raised before: the next refusal fills it in.
  "0023_witness_alarm_size": statements(
    `ALTER TABLE aics_witness_alarms ADD COLUMN witness_size bigint`
  ),
  // The tree of this log a witness refused (AnotherHistoryAlarm.refusedTree: its 422, or
  // its 409 at the very size sent): the size and this log's root there, so every node finds
  // the log diverged while it still holds that tree, and not once a copy holding the
  // witness's tree is restored. NULL for the other alarms. Nullable columns rewrite nothing.
  "0024_witness_alarm_refused_tree": statements(
    `ALTER TABLE aics_witness_alarms
      ADD COLUMN refused_size bigint,
      ADD COLUMN refused_root text,
      ADD CONSTRAINT aics_witness_alarms_refused_both CHECK ((refused_size IS NULL) = (refused_root IS NULL))`
  )
}

const ensureMigrationsTable = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.withTransaction(Effect.zipRight(
    sql`SELECT pg_advisory_xact_lock(hashtext(current_schema() || '.' || ${MIGRATIONS_TABLE}))`,
    sql`CREATE TABLE IF NOT EXISTS ${sql(MIGRATIONS_TABLE)} (
      migration_id integer PRIMARY KEY,
      created_at timestamp with time zone NOT NULL DEFAULT now(),
      name text NOT NULL
    )`
  )))

/** Runs the migrations not yet recorded; answers the ones it ran, [id, name], in order. */
export const runMigrations: Effect.Effect<
  ReadonlyArray<readonly [id: number, name: string]>,
  StorageError,
  SqlClient.SqlClient | PgClient.PgClient
> = ensureMigrationsTable.pipe(
  Effect.zipRight(PgMigrator.run({ loader: PgMigrator.fromRecord(migrations), table: MIGRATIONS_TABLE })),
  // The migrator's pg_dump support needs a file system and a command executor in its
  // context; it only dumps with a schemaDirectory, which is never given here.
  Effect.provide(NodeContext.layer),
  // A failed migration is a defect in the migrator; here it is the start's StorageError.
  Effect.catchAllDefect((defect) =>
    Effect.fail(new StorageError({ operation: "migrate", detail: `a migration failed: ${String(defect)}`, cause: defect }))),
  Effect.mapError((error) =>
    error._tag === "MigrationError" ? new StorageError({ operation: "migrate", detail: error.message, cause: error }) : error),
  storage("migrate")
)
