/**
 * The version of a row an in-process index keeps a copy of, from a timestamp the row's every
 * change sets: microseconds since the epoch, as text (the same whatever the session's time zone).
 * A document's is its updated_at; a corpus record's, when its newest chunk was written. A snapshot
 * of the flat vector index records each owner's, and a restart reads again what differs.
 */
export function rowVersionSql(timestamp: string): string {
  return `(extract(epoch FROM ${timestamp}) * 1000000)::bigint::text`;
}
