/**
 * Every peer with the settings its file documents, for a bench that runs them all. hnswlib-node is
 * an optional dependency (it compiles at install), so it is left out where it is not installed.
 */
import { HnswlibPeer, hnswlibAvailable } from './hnswlib.peer.js';
import { LanceDbPeer } from './lancedb.peer.js';
import { OramaPeer } from './orama.peer.js';
import type { VectorPeer } from './peer.js';

export type { PeerChunk, PeerHit, VectorPeer } from './peer.js';

export async function defaultPeers(): Promise<VectorPeer[]> {
  const peers: VectorPeer[] = [new LanceDbPeer()];
  if (await hnswlibAvailable()) peers.push(new HnswlibPeer());
  peers.push(new OramaPeer());
  return peers;
}
