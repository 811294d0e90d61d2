import { type AppError, errors } from '../errors.js';
import type { TenantCorpusRow } from './corpus.repository.js';

/** Whether a tenant's queries search a corpus: its plan gives access and, where required, it accepted the DUA. */
export function isSearchable(corpus: Pick<TenantCorpusRow, 'accessible' | 'accepted' | 'requires_dua'>): boolean {
  return corpus.accessible && (corpus.accepted || !corpus.requires_dua);
}

export function corpusNotAvailableOnPlan(slug: string, plan: string): AppError {
  return errors.forbidden('corpus_not_available_on_plan', `The corpus ${slug} is not available on the ${plan} plan.`, {
    corpus: slug,
    plan,
  });
}

export function duaNotAccepted(slug: string): AppError {
  return errors.forbidden(
    'dua_not_accepted',
    `The corpus ${slug} requires its data-use agreement to be accepted first (POST /v1/corpora/${slug}/accept-dua, admin key).`,
    { corpus: slug },
  );
}
