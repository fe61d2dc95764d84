// Names (docs/spec/profile.md section 2). An agent's name is normalised before anything else:
// name_norm = NFKC, then lower case; it must then match ^[a-z0-9](?:[a-z0-9-]{1,30}[a-z0-9])$
// (3 to 32 characters, letters, digits and inner hyphens) with no "--", and not be
// reserved. Lookups also accept "@name" and "@name.<instance_domain>".

/** Names no agent may claim: they would impersonate the service or its operators. */
export const RESERVED_NAMES: ReadonlySet<string> = new Set([
  "owner", "admin", "administrator", "root", "system", "aics", "support", "notice", "notices",
  "abuse", "security", "api", "www", "t", "tiles", "policy", "log", "postmaster", "hostmaster",
  "webmaster", "help", "info", "operator", "moderator", "official", "staff", "service"
])

const NAME = /^[a-z0-9](?:[a-z0-9-]{1,30}[a-z0-9])$/

export type NameProblem = "name_invalid" | "name_reserved"

/** The normal form of a name as typed: NFKC, then lower case. */
export const normalizeName = (name: string): string => name.normalize("NFKC").toLowerCase()

/** Why a normalised name cannot be claimed, or undefined when it can. */
export const nameProblem = (nameNorm: string): NameProblem | undefined => {
  if (!NAME.test(nameNorm) || nameNorm.includes("--")) return "name_invalid"
  if (RESERVED_NAMES.has(nameNorm)) return "name_reserved"
  return undefined
}

/**
 * The name_norm a lookup handle designates: a bare name, "@name", or
 * "@name.<instance_domain>". Undefined when the handle names another instance or is not a
 * valid name.
 */
export const nameFromHandle = (handle: string, instanceDomain: string): string | undefined => {
  let name = handle.startsWith("@") ? handle.slice(1) : handle
  const suffix = `.${instanceDomain}`
  if (handle.startsWith("@") && name.toLowerCase().endsWith(suffix)) name = name.slice(0, -suffix.length)
  const norm = normalizeName(name)
  return nameProblem(norm) === "name_invalid" ? undefined : norm
}
