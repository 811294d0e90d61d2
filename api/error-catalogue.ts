/**
 * Every error code Lore answers with, by status: the examples of the OpenAPI document's error
 * responses. A test scans core/ and api/ and fails when a code thrown there is missing here, or a
 * code here is thrown nowhere. Spec section 4 lists which codes each endpoint answers.
 */
export const ERROR_CODES: Readonly<Record<number, readonly string[]>> = {
  400: [
    'bad_request',
    'invalid_json',
    'invalid_multipart',
    'invalid_metadata',
    'invalid_knowledge_base_id',
    'missing_file',
    'confirmation_required',
    'unsupported_language',
    'unsupported_language_pair',
    'text_too_long',
    'invalid_batch_size',
    'missing_audio',
    'invalid_audio',
    'audio_too_long',
    'invalid_callback_url',
    'empty_transcript',
    'transcript_too_long',
  ],
  401: ['unauthorized', 'invalid_token'],
  402: ['payment_required', 'quota_exhausted', 'document_limit_reached', 'chunk_quota_exceeded'],
  403: [
    'insufficient_role',
    'dua_not_accepted',
    'knowledge_base_limit_reached',
    'free_tier_restriction',
    'enterprise_only',
    'enterprise_plan_required',
    'sub_tenant_keys_cannot_manage_sub_tenants',
    'sub_tenant_document_limit_reached',
    'addon_not_enabled',
    'corpus_not_available_on_plan',
    'invalid_signature',
    'csrf_token_invalid',
  ],
  404: ['not_found', 'no_pending_cancellation'],
  409: [
    'already_on_plan',
    'use_downgrade_endpoint',
    'use_upgrade_endpoint',
    'billing_details_required',
    'cancellation_pending',
    'already_on_free',
    'not_annual_plan',
    'annual_not_available',
    'corpus_exists',
    'result_not_available',
  ],
  410: ['export_link_expired', 'result_expired'],
  413: ['payload_too_large', 'document_too_large', 'storage_quota_exceeded', 'sub_tenant_storage_quota_exceeded'],
  415: ['unsupported_media_type'],
  422: [
    'validation_failed',
    'invalid_plan',
    'exceeds_target_plan_limits',
    'unsupported_file_type',
    'pdf_extraction_failed',
    'parse_timeout',
    'content_too_large',
    'empty_document',
    'dpa_version_mismatch',
  ],
  429: ['rate_limit_exceeded', 'per_user_rate_limit_exceeded', 'sub_tenant_chunk_quota_exceeded', 'tenant_pool_quota_exceeded'],
  431: ['request_header_too_large'],
  500: ['internal_error', 'translation_failed'],
  503: ['temporarily_unavailable', 'translation_unavailable', 'billing_not_available', 'scribe_api_not_available', 'transcription_unavailable', 'report_generation_unavailable'],
};

/**
 * Codes answered only outside the REST API: on the portal's pages (in HTML) and by the
 * secret-scanning partner endpoint. Kept apart so the REST operations' examples do not list them.
 */
export const NON_REST_ERROR_CODES: Readonly<Record<number, readonly string[]>> = {
  400: ['invalid_link'],
  401: ['invalid_credentials', 'invalid_signature'],
  409: ['email_in_use', 'last_admin'],
  503: ['signature_keys_unavailable'],
};
