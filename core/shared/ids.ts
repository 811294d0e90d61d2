const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids are UUIDs; anything else cannot name a resource and is answered like a missing one. */
export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}
