// Generated from Lore's /v1/openapi.json by npm run client:generate. Do not edit.

export interface paths {
    "/health/index": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The vector indexes exist */
        get: operations["getIndexHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/health/live": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The process is alive */
        get: operations["getLiveness"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/health/ready": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The database is reachable */
        get: operations["getReadiness"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete the account and all its data (requires X-Confirm-Delete)
         * @description Minimum role: admin.
         */
        delete: operations["deleteAccount"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Export the account: a summary, and a signed link to a ZIP of all its data
         * @description Minimum role: admin.
         */
        post: operations["exportAccount"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/exports/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Download an export archive through its signed link (no API key) */
        get: operations["downloadAccountExport"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/addons/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Status of the transcription and report engines
         * @description Minimum role: read.
         */
        get: operations["getAddonHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List active API keys (never the keys themselves)
         * @description Minimum role: admin.
         */
        get: operations["listApiKeys"];
        put?: never;
        /**
         * Create an API key (the key is shown only in this response)
         * @description Minimum role: admin.
         */
        post: operations["createApiKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/keys/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke an API key; it stops working at once
         * @description Minimum role: admin.
         */
        delete: operations["revokeApiKey"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/billing": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Plan, billing interval, current period and scheduled changes
         * @description Minimum role: admin.
         */
        get: operations["getBillingStatus"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/billing/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Schedule a cancellation (to Free) for the end of the billing period
         * @description Minimum role: admin.
         */
        post: operations["cancelPlan"];
        /**
         * Retract a pending cancellation
         * @description Minimum role: admin.
         */
        delete: operations["retractCancellation"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/billing/details": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Set the billing details required for paid plans and annual billing
         * @description Minimum role: admin.
         */
        put: operations["setBillingDetails"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/billing/downgrade": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Schedule a downgrade for the end of the billing period
         * @description Minimum role: admin.
         */
        post: operations["downgradePlan"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/billing/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Billing events (currently always empty)
         * @description Minimum role: admin.
         */
        get: operations["listBillingEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/billing/interval": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Switch between monthly and annual billing (from the next period)
         * @description Minimum role: admin.
         */
        post: operations["setBillingInterval"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/billing/renew": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Renew an annual plan for another year
         * @description Minimum role: admin.
         */
        post: operations["renewAnnualPlan"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/billing/upgrade": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Upgrade at once; included queries are prorated for the rest of the period
         * @description Minimum role: admin.
         */
        post: operations["upgradePlan"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/billing/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Billing usage: the last 30 days plus current-period counters
         * @description Minimum role: admin.
         */
        get: operations["getBillingUsage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/corpora": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The platform corpora, with whether the tenant's plan gives access and whether it accepted each data-use agreement
         * @description Minimum role: any key.
         */
        get: operations["listCorpora"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/corpora/{slug}/accept-dua": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Accept a corpus's data-use agreement for the tenant and all its sub-tenants
         * @description Minimum role: admin.
         */
        post: operations["acceptCorpusDua"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/detect": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Detect the language of a text
         * @description Minimum role: any key.
         */
        post: operations["detectLanguage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/documents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Ingest a text document into a knowledge base
         * @description Minimum role: write.
         */
        post: operations["ingestDocument"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/documents/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a document with its content
         * @description Minimum role: any key.
         */
        get: operations["getDocument"];
        put?: never;
        post?: never;
        /**
         * Delete a document, its chunks and stored file (frees its quota)
         * @description Minimum role: write.
         */
        delete: operations["deleteDocument"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/documents/{id}/download": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Download the stored original file of an upload
         * @description Minimum role: any key.
         */
        get: operations["downloadDocument"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/documents/upload": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Upload a text, Markdown, HTML or PDF file (max request 55 MB)
         * @description Minimum role: write.
         */
        post: operations["uploadDocument"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/dpa/accept": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Accept the current version of the data-processing agreement
         * @description Minimum role: admin.
         */
        post: operations["acceptDpa"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/dpa/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Whether the tenant has accepted the current data-processing agreement
         * @description Minimum role: any key.
         */
        get: operations["getDpaStatus"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/jobs/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a job (poll for ingestion, transcription or report progress)
         * @description Minimum role: any key.
         */
        get: operations["getJob"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/jobs/{id}/result": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A transcription or report job's result, kept for ADDON_RESULT_TTL_HOURS (default 7 days)
         * @description Minimum role: any key.
         */
        get: operations["getJobResult"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/knowledge-bases": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the knowledge bases the key can see
         * @description Minimum role: any key.
         */
        get: operations["listKnowledgeBases"];
        put?: never;
        /**
         * Create a knowledge base
         * @description Minimum role: write.
         */
        post: operations["createKnowledgeBase"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/knowledge-bases/{kb_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Rename a knowledge base or change its translation settings
         * @description Minimum role: write.
         */
        patch: operations["updateKnowledgeBase"];
        trace?: never;
    };
    "/v1/knowledge-bases/{kb_id}/documents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the documents of a knowledge base
         * @description Minimum role: any key.
         */
        get: operations["listKnowledgeBaseDocuments"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/query": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Search the knowledge bases the key can see
         * @description Minimum role: read.
         */
        post: operations["query"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/reports/generate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Generate a structured report from a transcript (add-on)
         * @description Minimum role: write.
         */
        post: operations["generateReport"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sub-tenants": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List sub-tenants
         * @description Minimum role: admin.
         */
        get: operations["listSubTenants"];
        put?: never;
        /**
         * Create a sub-tenant (200 with the existing one when external_id is taken)
         * @description Minimum role: admin.
         */
        post: operations["createSubTenant"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sub-tenants/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a sub-tenant
         * @description Minimum role: admin.
         */
        get: operations["getSubTenant"];
        put?: never;
        post?: never;
        /**
         * Delete a sub-tenant with all its data (frees the parent’s quotas)
         * @description Minimum role: admin.
         */
        delete: operations["deleteSubTenant"];
        options?: never;
        head?: never;
        /**
         * Rename a sub-tenant or change its limits (null clears a limit)
         * @description Minimum role: admin.
         */
        patch: operations["updateSubTenant"];
        trace?: never;
    };
    "/v1/sub-tenants/{id}/api-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the active keys of a sub-tenant
         * @description Minimum role: admin.
         */
        get: operations["listSubTenantKeys"];
        put?: never;
        /**
         * Create a key that sees only this sub-tenant
         * @description Minimum role: admin.
         */
        post: operations["createSubTenantKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sub-tenants/{id}/api-keys/{key_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke a key of a sub-tenant
         * @description Minimum role: admin.
         */
        delete: operations["revokeSubTenantKey"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sub-tenants/{id}/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Usage of a sub-tenant against its own limits
         * @description Minimum role: admin.
         */
        get: operations["getSubTenantUsage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sub-tenants/{id}/users/{user_id}/preferences": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Store an end user’s translation preferences (Enterprise only)
         * @description Minimum role: admin.
         */
        patch: operations["setUserPreferences"];
        trace?: never;
    };
    "/v1/tenant/settings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The tenant's translation settings
         * @description Minimum role: admin.
         */
        get: operations["getTenantSettings"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Replace the tenant's translation settings (fields left out are unset; {} clears them)
         * @description Minimum role: admin.
         */
        patch: operations["updateTenantSettings"];
        trace?: never;
    };
    "/v1/transcribe": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Transcribe audio (add-on; max request 25 MB)
         * @description Minimum role: write.
         */
        post: operations["transcribe"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/translate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Translate a text (source may be auto)
         * @description Minimum role: read.
         */
        post: operations["translate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/translate/batch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Translate 1-100 texts from one language into another
         * @description Minimum role: read.
         */
        post: operations["translateBatch"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/translation/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Status of every language pair
         * @description Minimum role: read.
         */
        get: operations["getTranslationHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/translation/languages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The language pairs this instance translates
         * @description Minimum role: read.
         */
        get: operations["listTranslationLanguages"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Current usage against the plan limits (a sub-tenant key: that sub-tenant against its limits)
         * @description Minimum role: any key.
         */
        get: operations["getUsage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/usage/breakdown": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Usage per sub-tenant, and the tenant’s total chunks
         * @description Minimum role: admin.
         */
        get: operations["getUsageBreakdown"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/usage/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Active end users of the current month (UTC) per sub-tenant
         * @description Minimum role: admin.
         */
        get: operations["getActiveUsers"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        AddonHealth: {
            report_generation: {
                engine: string | null;
                languages?: ("en" | "nl" | "fr" | "de" | "es" | "it" | "bg" | "ro")[];
                /** @enum {string} */
                status: "healthy" | "unavailable" | "disabled";
            };
            transcription: {
                engine: string | null;
                languages?: ("en" | "nl" | "fr" | "de" | "es" | "it" | "bg" | "ro")[];
                /** @enum {string} */
                status: "healthy" | "unavailable" | "disabled";
            };
        };
        AddonJobAccepted: {
            /** Format: uuid */
            job_id: string;
        };
        ApiKey: {
            /** Format: date-time */
            created_at: string;
            /** Format: uuid */
            id: string;
            /** @description Last four characters of the key. */
            key_hint: string;
            /** Format: date-time */
            last_used_at: string | null;
            name: string;
            /** @enum {string} */
            role: "read" | "write" | "admin";
            /** Format: uuid */
            sub_tenant_id: string | null;
        };
        BillingDetails: {
            address: string;
            company_name: string;
            country: string;
            /** Format: email */
            email: string;
            /** @enum {string} */
            payment_method: "card" | "sepa_debit" | "bank_transfer";
            vat_id?: string;
        };
        BillingUsage: {
            included_queries: number;
            ingestion_chunks: number;
            overage_cost_microcents: number;
            overage_queries: number;
            /** @enum {string} */
            plan_type: "free" | "payg" | "standard" | "enterprise";
            query_count: number;
            total_cost_microcents: number;
            total_input_tokens: number;
            total_output_tokens: number;
            total_requests: number;
        };
        Corpus: {
            /** @description Whether the tenant accepted the corpus's data-use agreement. */
            accepted: boolean;
            /** @description Whether the tenant's plan gives access to the corpus. */
            accessible: boolean;
            license_info: string;
            name: string;
            requires_dua: boolean;
            slug: string;
        };
        CreateApiKeyRequest: {
            name: string;
            /** @enum {string} */
            role: "read" | "write" | "admin";
        };
        CreatedApiKey: {
            /** Format: uuid */
            id: string;
            /** @description The key itself. Shown only in this response; store it now. */
            key: string;
        };
        CreateKnowledgeBaseRequest: {
            /** @default 1024 */
            dimensions?: number;
            name: string;
            translation_config?: components["schemas"]["TranslationConfig"];
        };
        CreateSubTenantKeyRequest: {
            name?: string;
            /** @enum {string} */
            role: "read" | "write";
        };
        CreateSubTenantRequest: {
            external_id?: string;
            included_queries_per_period?: number | null;
            max_document_size_bytes?: number | null;
            max_documents?: number | null;
            max_knowledge_bases?: number | null;
            max_total_chunks?: number | null;
            name: string;
            per_user_rate_limit_per_min?: number | null;
            query_rate_limit_per_min?: number | null;
            storage_quota_bytes?: number | null;
            translation_config?: components["schemas"]["TranslationConfig"];
        };
        DetectRequest: {
            /** @description At most 5000 characters (400 text_too_long). */
            text: string;
        };
        DetectResponse: {
            /** @description How clearly the text favours `language` over every other language the detector knows (0: a tie, 1: no contest); 0 when language is null. */
            confidence: number;
            /**
             * @description The detected language; null when the text is in none of the supported languages or gives too little evidence.
             * @enum {string|null}
             */
            language: "en" | "nl" | "fr" | "de" | "es" | "it" | "bg" | "ro" | null;
        };
        Document: {
            anonymized: boolean;
            chunk_count: number;
            /** @description The stored text (anonymized when requested). */
            content: string;
            content_bytes: number;
            /** Format: date-time */
            created_at: string;
            error: string | null;
            /** @description The stored original file of an upload, served by /download. */
            file: {
                content_type: string;
                file_name: string | null;
                size_bytes: number;
            } | null;
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            knowledge_base_id: string;
            language: string | null;
            /** @enum {string} */
            source: "text" | "upload";
            /**
             * @description processing until indexed; ready when searchable.
             * @enum {string}
             */
            status: "processing" | "ready" | "failed";
            /** Format: uuid */
            sub_tenant_id: string | null;
            tags: {
                [key: string]: string;
            };
            title: string;
            /** Format: date-time */
            updated_at: string;
        };
        DocumentSummary: {
            anonymized: boolean;
            chunk_count: number;
            content_bytes: number;
            /** Format: date-time */
            created_at: string;
            error: string | null;
            /** @description The stored original file of an upload, served by /download. */
            file: {
                content_type: string;
                file_name: string | null;
                size_bytes: number;
            } | null;
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            knowledge_base_id: string;
            language: string | null;
            /** @enum {string} */
            source: "text" | "upload";
            /**
             * @description processing until indexed; ready when searchable.
             * @enum {string}
             */
            status: "processing" | "ready" | "failed";
            /** Format: uuid */
            sub_tenant_id: string | null;
            tags: {
                [key: string]: string;
            };
            title: string;
            /** Format: date-time */
            updated_at: string;
        };
        Error: {
            /** @description Machine-readable error code, e.g. `not_found`. */
            error: string;
            /** @description On every 422: the offending fields (or usage counters). */
            fields?: {
                field: string;
                message: string;
            }[];
            message: string;
            request_id: string;
        } & {
            [key: string]: unknown;
        };
        IngestDocumentRequest: {
            /** @description Defaults to the tenant's anonymization setting. */
            anonymize?: boolean;
            content: string;
            /** Format: uuid */
            knowledge_base_id: string;
            /** @description Up to 32 string tags; keys 1-64 chars, values up to 512. */
            tags?: {
                [key: string]: string;
            };
            title: string;
        };
        Job: {
            /** @description Times a worker has started this job. */
            attempts: number;
            /** Format: date-time */
            completed_at: string | null;
            /** Format: date-time */
            created_at: string;
            /** @description Add-on jobs: the delivery of the result to the request's callback_url. */
            delivery?: {
                attempts: number;
                /** Format: date-time */
                delivered_at: string | null;
                last_error: string | null;
                last_status_code: number | null;
                /**
                 * @description none: no callback_url was given.
                 * @enum {string}
                 */
                status: "none" | "pending" | "delivered" | "failed";
            };
            /** Format: uuid */
            document_id: string | null;
            /** @description Sanitized reason of the last failure, or null. */
            error: string | null;
            /** Format: uuid */
            id: string;
            /** @enum {string} */
            job_type: "ingestion" | "transcription" | "report_generation";
            /** Format: uuid */
            knowledge_base_id: string | null;
            processed_chunks: number;
            /**
             * Format: date-time
             * @description Add-on jobs: until when GET /v1/jobs/{id}/result serves the result (null before it exists).
             */
            result_expires_at?: string | null;
            /** @enum {string} */
            status: "queued" | "processing" | "completed" | "failed";
            /** Format: uuid */
            tenant_id: string;
            total_chunks: number;
        };
        JobResult: {
            /** Format: uuid */
            job_id: string;
            /** @enum {string} */
            job_type: "transcription" | "report_generation";
            result: components["schemas"]["Transcript"] | components["schemas"]["Report"];
        };
        KnowledgeBase: {
            /** Format: date-time */
            created_at: string;
            dimensions: number;
            /** Format: uuid */
            id: string;
            name: string;
            /** Format: uuid */
            sub_tenant_id: string | null;
            translation_config: components["schemas"]["TranslationConfig"];
            /** Format: date-time */
            updated_at: string;
        };
        LanguagePair: {
            /** @enum {string} */
            source: "en" | "nl" | "fr" | "de" | "es" | "it" | "bg" | "ro";
            /** @enum {string} */
            target: "en" | "nl" | "fr" | "de" | "es" | "it" | "bg" | "ro";
        };
        QueryRequest: {
            /** @description Search only these platform corpora (slugs); [] searches none. Default: every corpus your plan gives access to and whose data-use agreement you accepted where one is required. Unknown: 404; not on your plan or not accepted: 403. */
            corpora?: string[];
            /** @description Keys: `tags.<key>` (exact value), `created_after` and `created_before` (ISO 8601, exclusive), `document_title` (case-insensitive substring). String values; all must hold. */
            filters?: {
                [key: string]: string;
            };
            /** @description Restrict the search to these knowledge bases (default: all the key can see). */
            knowledge_base_ids?: string[];
            /** @description Filters platform corpus results by record metadata: `{<key>: <value>}`, string values, exact match (numbers and booleans compare as their JSON text, e.g. "2019", "true"); all must hold. Does not affect results from your own documents. */
            metadata_filter?: {
                [key: string]: string;
            };
            query: string;
            /**
             * @description `auto` (detect) or one of en, nl, fr, de, es, it, bg, ro; anything else is 400 unsupported_language.
             * @default auto
             */
            source_language?: string;
            /** @default 10 */
            top_k?: number;
            translate_response?: boolean;
        };
        QueryResponse: {
            metadata?: {
                translation_config_source: string;
                translation_latency_ms: number;
            };
            results: components["schemas"]["QueryResultItem"][];
        };
        QueryResultItem: {
            /** Format: uuid */
            chunk_id?: string;
            chunk_index?: number;
            content: string;
            content_original?: string;
            /** Format: uuid */
            document_id?: string;
            document_tags?: {
                [key: string]: string;
            };
            document_title?: string;
            /** Format: uuid */
            knowledge_base_id?: string;
            /** @description Platform results: the record's metadata. */
            metadata?: {
                [key: string]: unknown;
            };
            /** @description Fused relevance: higher is better (reciprocal-rank fusion of vector and keyword ranks). */
            score: number;
            /** @description `tenant` for own documents; the corpus slug for platform corpus results. */
            source: string;
            /** @description Platform results: the record's id in its corpus. */
            source_record_id?: string;
            /** @description Present on a result that response translation applied to but could not translate (fallback_behaviour `passthrough`): `content` is the original text, in `language`. */
            untranslated?: {
                /** @description The language the content is in. */
                language: string;
                /**
                 * @description `unsupported_pair`: no translation engine of this instance translates that language into the query’s; `translation_unavailable`: the engine could not be reached; `translation_failed`: it could not translate this text.
                 * @enum {string}
                 */
                reason: "unsupported_pair" | "translation_unavailable" | "translation_failed";
            };
        };
        Report: {
            action_items: {
                /** @description Who said it or was named for it, when the transcript shows it. */
                owner: string | null;
                text: string;
            }[];
            decisions: string[];
            key_points: string[];
            /**
             * @description The transcript's language, which the report is written in (null when unknown).
             * @enum {string|null}
             */
            language: "en" | "nl" | "fr" | "de" | "es" | "it" | "bg" | "ro" | null;
            /** @description Speakers named in the transcript ("Name: ..." lines). */
            participants: string[];
            summary: string;
            title: string;
        };
        /** @description Limits are null when only the parent tenant’s limit applies. */
        SubTenant: {
            /** Format: date-time */
            created_at: string;
            external_id: string | null;
            /** Format: uuid */
            id: string;
            included_queries_per_period: number | null;
            max_document_size_bytes: number | null;
            max_documents: number | null;
            max_knowledge_bases: number | null;
            max_total_chunks: number | null;
            name: string;
            per_user_rate_limit_per_min: number | null;
            query_rate_limit_per_min: number | null;
            storage_quota_bytes: number | null;
            translation_config: components["schemas"]["TranslationConfig"];
            /** Format: date-time */
            updated_at: string;
            usage: {
                /** @description Distinct X-User-Id values seen this calendar month (UTC). */
                active_users: number;
                chunks: {
                    limit: number | null;
                    used: number;
                };
                documents: {
                    limit: number | null;
                    used: number;
                };
                knowledge_bases: number;
                queries_this_period: {
                    limit: number | null;
                    used: number;
                };
                storage_bytes: {
                    limit: number | null;
                    used: number;
                };
            };
        };
        SubTenantUsage: {
            /** @description Distinct X-User-Id values seen this calendar month (UTC). */
            active_users: number;
            chunks: {
                limit: number | null;
                used: number;
            };
            documents: {
                limit: number | null;
                used: number;
            };
            queries_this_period: {
                limit: number | null;
                used: number;
            };
            storage_bytes: {
                limit: number | null;
                used: number;
            };
        };
        TenantSettings: {
            translation_config: components["schemas"]["TranslationConfig"];
        };
        Transcript: {
            duration_seconds: number;
            /**
             * @description The language asked for, or the one detected in the text when auto was asked.
             * @enum {string|null}
             */
            language: "en" | "nl" | "fr" | "de" | "es" | "it" | "bg" | "ro" | null;
            segments: {
                end_seconds: number;
                start_seconds: number;
                text: string;
            }[];
            text: string;
        };
        TranslateBatchRequest: {
            /** @description Source language, or `auto` to detect it: one of en, nl, fr, de, es, it, bg, ro; anything else is 400 unsupported_language. */
            source: string;
            /** @description Target language: one of en, nl, fr, de, es, it, bg, ro; anything else is 400 unsupported_language. */
            target: string;
            /** @description 1-100 texts (else 400 invalid_batch_size), each at most 5000 characters (400 text_too_long). */
            texts: string[];
        };
        TranslateBatchResponse: {
            latency_ms: number;
            /**
             * @description The source language (with `auto`: detected once, from all the texts together).
             * @enum {string}
             */
            source: "en" | "nl" | "fr" | "de" | "es" | "it" | "bg" | "ro";
            /** @enum {string} */
            target: "en" | "nl" | "fr" | "de" | "es" | "it" | "bg" | "ro";
            /** @description One per text, in order. */
            translations: string[];
        };
        TranslateRequest: {
            /** @description Source language, or `auto` to detect it: one of en, nl, fr, de, es, it, bg, ro; anything else is 400 unsupported_language. */
            source: string;
            /** @description Target language: one of en, nl, fr, de, es, it, bg, ro; anything else is 400 unsupported_language. */
            target: string;
            /** @description At most 5000 characters (400 text_too_long). */
            text: string;
        };
        TranslateResponse: {
            /** @description Time spent detecting and translating, in milliseconds. */
            latency_ms: number;
            /**
             * @description The source language (the detected one when the request said `auto`).
             * @enum {string}
             */
            source: "en" | "nl" | "fr" | "de" | "es" | "it" | "bg" | "ro";
            /** @enum {string} */
            target: "en" | "nl" | "fr" | "de" | "es" | "it" | "bg" | "ro";
            translated_text: string;
        };
        TranslationConfig: {
            /** @enum {string} */
            fallback_behaviour?: "passthrough" | "error";
            /** @enum {string} */
            preferred_language?: "en" | "nl" | "fr" | "de" | "es" | "it" | "bg" | "ro";
            /** @enum {string} */
            query_translation?: "auto" | "never";
            /** @enum {string} */
            response_translation?: "always" | "on_request" | "never";
        };
        TranslationHealth: {
            /** @description The configured engines, best first. */
            engines: ("deepl" | "libretranslate" | "apertium")[];
            models: {
                /** @enum {string|null} */
                engine: "deepl" | "libretranslate" | "apertium" | null;
                /**
                 * @description The language the engine translates through, for chained pairs: one of the eight, or Catalan (`ca`) for Apertium.
                 * @enum {string|null}
                 */
                pivot: "en" | "nl" | "fr" | "de" | "es" | "it" | "bg" | "ro" | "ca" | null;
                /** @enum {string} */
                source: "en" | "nl" | "fr" | "de" | "es" | "it" | "bg" | "ro";
                /**
                 * @description loaded: an engine serves the pair and answered its latest probe; failed: it did not; unavailable: no configured engine serves it.
                 * @enum {string}
                 */
                status: "loaded" | "failed" | "unavailable";
                /** @enum {string} */
                target: "en" | "nl" | "fr" | "de" | "es" | "it" | "bg" | "ro";
            }[];
            models_loaded: number;
            /** @description Ordered pairs of the supported languages: 56. */
            models_total: number;
            /**
             * @description healthy: every pair works; degraded: some do; disabled: translation is off or no pair works.
             * @enum {string}
             */
            status: "healthy" | "degraded" | "disabled";
        };
        /** @description `dimensions` is immutable and refused with 422. */
        UpdateKnowledgeBaseRequest: {
            name?: string;
            translation_config?: components["schemas"]["TranslationConfig"];
        };
        UpdateSubTenantRequest: {
            included_queries_per_period?: number | null;
            max_document_size_bytes?: number | null;
            max_documents?: number | null;
            max_knowledge_bases?: number | null;
            max_total_chunks?: number | null;
            name?: string;
            per_user_rate_limit_per_min?: number | null;
            query_rate_limit_per_min?: number | null;
            storage_quota_bytes?: number | null;
            /** @description Replaces the stored object. */
            translation_config?: {
                /** @enum {string} */
                fallback_behaviour?: "passthrough" | "error";
                /** @enum {string} */
                preferred_language?: "en" | "nl" | "fr" | "de" | "es" | "it" | "bg" | "ro";
                /** @enum {string} */
                query_translation?: "auto" | "never";
                /** @enum {string} */
                response_translation?: "always" | "on_request" | "never";
            };
        };
        UpdateTenantSettingsRequest: {
            translation_config: components["schemas"]["TranslationConfig"];
        };
        /** @description `limit: null` means unlimited; `percent` is null when no limit applies. */
        Usage: {
            chunks: {
                limit: number | null;
                percent: number | null;
                used: number;
            };
            documents: {
                limit: number | null;
                percent: number | null;
                used: number;
            };
            knowledge_bases: {
                limit: number | null;
                used: number;
            };
            queries_this_period: {
                limit: number | null;
                percent: number | null;
                used: number;
            };
            query_rate_limit_per_min: number;
            storage_bytes: {
                limit: number | null;
                percent: number | null;
                used: number;
            };
        };
        UserPreferences: {
            translation_config: components["schemas"]["TranslationConfig"];
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getIndexHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Both vector indexes exist */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "idx_chunks_embedding": "ok",
                     *       "idx_platform_chunks_embedding": "ok"
                     *     }
                     */
                    "application/json": {
                        /** @enum {string} */
                        idx_chunks_embedding: "ok" | "missing";
                        /** @enum {string} */
                        idx_platform_chunks_embedding: "ok" | "missing";
                    };
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A vector index is missing (spec §4: the same body) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        idx_chunks_embedding: "ok" | "missing";
                        /** @enum {string} */
                        idx_platform_chunks_embedding: "ok" | "missing";
                    };
                };
            };
        };
    };
    getLiveness: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Alive */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "ok"
                     *     }
                     */
                    "application/json": {
                        /** @enum {string} */
                        status: "ok";
                    };
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getReadiness: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ready */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "ok"
                     *     }
                     */
                    "application/json": {
                        /** @enum {string} */
                        status: "ok";
                    };
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The database is unreachable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "unavailable";
                    };
                };
            };
        };
    };
    deleteAccount: {
        parameters: {
            query?: never;
            header: {
                "x-confirm-delete": "DELETE_MY_ACCOUNT";
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "deleted"
                     *     }
                     */
                    "application/json": {
                        /** @enum {string} */
                        status: "deleted";
                    };
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role too low or not allowed on this plan */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    exportAccount: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The export */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "download_url": "http://example.com",
                     *       "expires_in_seconds": 86400,
                     *       "account": {
                     *         "property1": null,
                     *         "property2": null
                     *       },
                     *       "knowledge_bases": [
                     *         null
                     *       ],
                     *       "documents": [
                     *         null
                     *       ],
                     *       "usage_history": [
                     *         {
                     *           "month": "string",
                     *           "event_type": "string",
                     *           "quantity": 0,
                     *           "cost_microcents": 0
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        account: {
                            [key: string]: unknown;
                        };
                        documents: unknown[];
                        /**
                         * Format: uri
                         * @description Works without an API key for 86400 seconds.
                         */
                        download_url: string;
                        /** @enum {number} */
                        expires_in_seconds: 86400;
                        knowledge_bases: unknown[];
                        usage_history: {
                            cost_microcents: number;
                            event_type: string;
                            month: string;
                            quantity: number;
                        }[];
                    };
                };
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role too low or not allowed on this plan */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    downloadAccountExport: {
        parameters: {
            query: {
                expires: string;
                signature: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A ZIP archive */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/zip": string;
                };
            };
            /** @description Role too low or not allowed on this plan */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (also for resources of other tenants) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getAddonHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Each engine: healthy, unavailable (its program or server does not answer) or disabled */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "transcription": {
                     *         "status": "healthy",
                     *         "engine": "string",
                     *         "languages": [
                     *           "en"
                     *         ]
                     *       },
                     *       "report_generation": {
                     *         "status": "healthy",
                     *         "engine": "string",
                     *         "languages": [
                     *           "en"
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["AddonHealth"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role too low or not allowed on this plan */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listApiKeys: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Active keys, oldest first */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "497f6eca-6276-4993-bfeb-53cbbbba6f08",
                     *         "name": "string",
                     *         "role": "read",
                     *         "sub_tenant_id": "e74a48ec-6527-410e-b576-913b477f19ba",
                     *         "key_hint": "string",
                     *         "created_at": "2019-08-24T14:15:22Z",
                     *         "last_used_at": "2019-08-24T14:15:22Z"
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["ApiKey"][];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role too low or not allowed on this plan */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Search frontend",
                 *       "role": "read"
                 *     }
                 */
                "application/json": components["schemas"]["CreateApiKeyRequest"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "497f6eca-6276-4993-bfeb-53cbbbba6f08",
                     *       "key": "string"
                     *     }
                     */
                    "application/json": components["schemas"]["CreatedApiKey"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role too low or not allowed on this plan */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    revokeApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role too low or not allowed on this plan */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (also for resources of other tenants) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getBillingStatus: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role too low or not allowed on this plan */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    cancelPlan: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Scheduled */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "cancellation_scheduled",
                     *       "effective_at": "2019-08-24T14:15:22Z"
                     *     }
                     */
                    "application/json": {
                        /** Format: date-time */
                        effective_at: string;
                        /** @enum {string} */
                        status: "cancellation_scheduled";
                    };
                };
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role too low or not allowed on this plan */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Temporarily unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    retractCancellation: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Retracted */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "cancellation_retracted"
                     *     }
                     */
                    "application/json": {
                        /** @enum {string} */
                        status: "cancellation_retracted";
                    };
                };
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role too low or not allowed on this plan */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (also for resources of other tenants) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Temporarily unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    setBillingDetails: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "company_name": "Acme B.V.",
                 *       "email": "billing@acme.example",
                 *       "address": "Keizersgracht 1, 1015 CC Amsterdam",
                 *       "country": "NL",
                 *       "vat_id": "NL123456789B01",
                 *       "payment_method": "sepa_debit"
                 *     }
                 */
                "application/json": components["schemas"]["BillingDetails"];
            };
        };
        responses: {
            /** @description The stored details */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "company_name": "string",
                     *       "email": "user@example.com",
                     *       "address": "string",
                     *       "country": "string",
                     *       "vat_id": "string",
                     *       "payment_method": "card"
                     *     }
                     */
                    "application/json": components["schemas"]["BillingDetails"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role too low or not allowed on this plan */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    downgradePlan: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "plan": "payg"
                 *     }
                 */
                "application/json": {
                    plan: string;
                };
            };
        };
        responses: {
            /** @description Scheduled */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "scheduled",
                     *       "plan": "free",
                     *       "effective_at": "2019-08-24T14:15:22Z"
                     *     }
                     */
                    "application/json": {
                        /** Format: date-time */
                        effective_at: string;
                        /** @enum {string} */
                        plan: "free" | "payg" | "standard" | "enterprise";
                        /** @enum {string} */
                        status: "scheduled";
                    };
                };
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role too low or not allowed on this plan */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Temporarily unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listBillingEvents: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description An empty list */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       null
                     *     ]
                     */
                    "application/json": unknown[];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role too low or not allowed on this plan */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    setBillingInterval: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "billing_interval": "annual"
                 *     }
                 */
                "application/json": {
                    /** @enum {string} */
                    billing_interval: "monthly" | "annual";
                };
            };
        };
        responses: {
            /** @description Scheduled or unchanged */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "scheduled",
                     *       "billing_interval": "monthly",
                     *       "effective_at": "2019-08-24T14:15:22Z"
                     *     }
                     */
                    "application/json": {
                        /** @enum {string} */
                        billing_interval: "monthly" | "annual";
                        /** Format: date-time */
                        effective_at: string | null;
                        /** @enum {string} */
                        status: "scheduled" | "unchanged";
                    };
                };
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role too low or not allowed on this plan */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Temporarily unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    renewAnnualPlan: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Renewed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "renewed",
                     *       "billing_interval": "annual",
                     *       "current_period_end": "2019-08-24T14:15:22Z",
                     *       "renewed_until": "2019-08-24T14:15:22Z"
                     *     }
                     */
                    "application/json": {
                        /** @enum {string} */
                        billing_interval: "annual";
                        /** Format: date-time */
                        current_period_end: string;
                        /** Format: date-time */
                        renewed_until: string;
                        /** @enum {string} */
                        status: "renewed";
                    };
                };
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role too low or not allowed on this plan */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Temporarily unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    upgradePlan: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "plan": "enterprise"
                 *     }
                 */
                "application/json": {
                    plan: string;
                };
            };
        };
        responses: {
            /** @description Upgraded */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "upgraded",
                     *       "plan": "free",
                     *       "prorated_queries": 0
                     *     }
                     */
                    "application/json": {
                        /** @enum {string} */
                        plan: "free" | "payg" | "standard" | "enterprise";
                        prorated_queries: number;
                        /** @enum {string} */
                        status: "upgraded";
                    };
                };
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role too low or not allowed on this plan */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Temporarily unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getBillingUsage: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Billing usage */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "plan_type": "free",
                     *       "included_queries": 0,
                     *       "total_requests": 0,
                     *       "total_input_tokens": 0,
                     *       "total_output_tokens": 0,
                     *       "total_cost_microcents": 0,
                     *       "query_count": 0,
                     *       "ingestion_chunks": 0,
                     *       "overage_queries": 0,
                     *       "overage_cost_microcents": 0
                     *     }
                     */
                    "application/json": components["schemas"]["BillingUsage"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role too low or not allowed on this plan */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listCorpora: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Corpora, by slug */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "corpora": [
                     *         {
                     *           "slug": "string",
                     *           "name": "string",
                     *           "license_info": "string",
                     *           "requires_dua": true,
                     *           "accepted": true,
                     *           "accessible": true
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        corpora: components["schemas"]["Corpus"][];
                    };
                };
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    acceptCorpusDua: {
        parameters: {
            query?: never;
            header?: {
                /** @description Who accepted (recorded). */
                "x-accepted-by"?: string;
            };
            path: {
                slug: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Accepted */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "ok"
                     *     }
                     */
                    "application/json": {
                        /** @enum {string} */
                        status: "ok";
                    };
                };
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role too low or not allowed on this plan */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (also for resources of other tenants) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    detectLanguage: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "text": "Het personeel krijgt 25 vakantiedagen per jaar."
                 *     }
                 */
                "application/json": components["schemas"]["DetectRequest"];
            };
        };
        responses: {
            /** @description The language (null when none of the supported ones) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "language": "en",
                     *       "confidence": 0
                     *     }
                     */
                    "application/json": components["schemas"]["DetectResponse"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    ingestDocument: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "knowledge_base_id": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                 *       "title": "Holidays",
                 *       "content": "Staff get 25 days of paid leave a year.\n\nUp to five unused days carry over to the next year.",
                 *       "tags": {
                 *         "team": "hr"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["IngestDocumentRequest"];
            };
        };
        responses: {
            /** @description Accepted: indexing runs asynchronously; poll GET /v1/jobs/{job_id}. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "job_id": "453bd7d7-5355-4d6d-a38e-d9e7eb218c3f",
                     *       "document_id": "b792e8ae-2cb4-4209-85b9-32be4c2fcdd6"
                     *     }
                     */
                    "application/json": {
                        /** Format: uuid */
                        document_id: string;
                        /** Format: uuid */
                        job_id: string;
                    };
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payment required or quota exhausted */
            402: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role too low or not allowed on this plan */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (also for resources of other tenants) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getDocument: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The document */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "497f6eca-6276-4993-bfeb-53cbbbba6f08",
                     *       "knowledge_base_id": "7f7aee98-aff7-4ac1-b5ab-74100459287d",
                     *       "sub_tenant_id": "e74a48ec-6527-410e-b576-913b477f19ba",
                     *       "title": "string",
                     *       "tags": {
                     *         "property1": "string",
                     *         "property2": "string"
                     *       },
                     *       "status": "processing",
                     *       "language": "string",
                     *       "anonymized": true,
                     *       "source": "text",
                     *       "content_bytes": 0,
                     *       "chunk_count": 0,
                     *       "file": {
                     *         "content_type": "string",
                     *         "file_name": "string",
                     *         "size_bytes": 0
                     *       },
                     *       "error": "string",
                     *       "created_at": "2019-08-24T14:15:22Z",
                     *       "updated_at": "2019-08-24T14:15:22Z",
                     *       "content": "string"
                     *     }
                     */
                    "application/json": components["schemas"]["Document"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (also for resources of other tenants) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteDocument: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role too low or not allowed on this plan */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (also for resources of other tenants) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    downloadDocument: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file: application/pdf or application/octet-stream */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": string;
                };
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (also for resources of other tenants) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    uploadDocument: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "metadata": "{\"knowledge_base_id\":\"3fa85f64-5717-4562-b3fc-2c963f66afa6\",\"title\":\"Travel policy\",\"tags\":{\"team\":\"hr\"}}"
                 *     }
                 */
                "multipart/form-data": {
                    /**
                     * Format: binary
                     * @description text/plain (.txt, .text), text/markdown (.md, .markdown), text/html (.html, .htm), application/pdf (.pdf). Its part's Content-Type says which; when that is application/octet-stream or missing, the file name's extension, else the content, decides. Markdown and HTML are indexed as their text, without markup.
                     */
                    file: string;
                    /**
                     * @description JSON: {"knowledge_base_id": "…", "title"?: "…", "tags"?: {…}, "anonymize"?: bool}. Title defaults to the file name.
                     * @example {"knowledge_base_id":"3fa85f64-5717-4562-b3fc-2c963f66afa6","title":"Travel policy","tags":{"team":"hr"}}
                     */
                    metadata: string;
                };
            };
        };
        responses: {
            /** @description Accepted: indexing runs asynchronously; poll GET /v1/jobs/{job_id}. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "job_id": "453bd7d7-5355-4d6d-a38e-d9e7eb218c3f",
                     *       "document_id": "b792e8ae-2cb4-4209-85b9-32be4c2fcdd6"
                     *     }
                     */
                    "application/json": {
                        /** Format: uuid */
                        document_id: string;
                        /** Format: uuid */
                        job_id: string;
                    };
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payment required or quota exhausted */
            402: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role too low or not allowed on this plan */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (also for resources of other tenants) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    acceptDpa: {
        parameters: {
            query?: never;
            header?: {
                /** @description Who accepted (recorded). */
                "x-accepted-by"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "version": 1
                 *     }
                 */
                "application/json": {
                    version: number;
                };
            };
        };
        responses: {
            /** @description Accepted */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "accepted",
                     *       "dpa_version": 0
                     *     }
                     */
                    "application/json": {
                        dpa_version: number;
                        /** @enum {string} */
                        status: "accepted";
                    };
                };
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role too low or not allowed on this plan */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getDpaStatus: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Status */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "compliant": true,
                     *       "current_version": 0,
                     *       "accepted_version": 0
                     *     }
                     */
                    "application/json": {
                        accepted_version: number | null;
                        compliant: boolean;
                        current_version: number;
                    };
                };
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getJob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The job */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "497f6eca-6276-4993-bfeb-53cbbbba6f08",
                     *       "tenant_id": "34f5c98e-f430-457b-a812-92637d0c6fd0",
                     *       "document_id": "b792e8ae-2cb4-4209-85b9-32be4c2fcdd6",
                     *       "knowledge_base_id": "7f7aee98-aff7-4ac1-b5ab-74100459287d",
                     *       "job_type": "ingestion",
                     *       "status": "queued",
                     *       "error": "string",
                     *       "total_chunks": 0,
                     *       "processed_chunks": 0,
                     *       "attempts": 0,
                     *       "created_at": "2019-08-24T14:15:22Z",
                     *       "completed_at": "2019-08-24T14:15:22Z",
                     *       "result_expires_at": "2019-08-24T14:15:22Z",
                     *       "delivery": {
                     *         "status": "none",
                     *         "attempts": 0,
                     *         "last_status_code": 0,
                     *         "last_error": "string",
                     *         "delivered_at": "2019-08-24T14:15:22Z"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Job"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (also for resources of other tenants) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getJobResult: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The transcript or the report */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "job_id": "453bd7d7-5355-4d6d-a38e-d9e7eb218c3f",
                     *       "job_type": "transcription",
                     *       "result": {
                     *         "language": "en",
                     *         "text": "string",
                     *         "duration_seconds": 0,
                     *         "segments": [
                     *           {
                     *             "start_seconds": 0,
                     *             "end_seconds": 0,
                     *             "text": "string"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JobResult"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (also for resources of other tenants) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listKnowledgeBases: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Knowledge bases, oldest first */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "497f6eca-6276-4993-bfeb-53cbbbba6f08",
                     *         "name": "string",
                     *         "dimensions": 0,
                     *         "translation_config": {
                     *           "query_translation": "auto",
                     *           "response_translation": "always",
                     *           "preferred_language": "en",
                     *           "fallback_behaviour": "passthrough"
                     *         },
                     *         "sub_tenant_id": "e74a48ec-6527-410e-b576-913b477f19ba",
                     *         "created_at": "2019-08-24T14:15:22Z",
                     *         "updated_at": "2019-08-24T14:15:22Z"
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["KnowledgeBase"][];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createKnowledgeBase: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Staff handbook"
                 *     }
                 */
                "application/json": components["schemas"]["CreateKnowledgeBaseRequest"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "497f6eca-6276-4993-bfeb-53cbbbba6f08"
                     *     }
                     */
                    "application/json": {
                        /** Format: uuid */
                        id: string;
                    };
                };
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role too low or not allowed on this plan */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateKnowledgeBase: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                kb_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Staff handbook 2026"
                 *     }
                 */
                "application/json": components["schemas"]["UpdateKnowledgeBaseRequest"];
            };
        };
        responses: {
            /** @description Success */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role too low or not allowed on this plan */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (also for resources of other tenants) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listKnowledgeBaseDocuments: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                kb_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Documents, oldest first */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "497f6eca-6276-4993-bfeb-53cbbbba6f08",
                     *         "knowledge_base_id": "7f7aee98-aff7-4ac1-b5ab-74100459287d",
                     *         "sub_tenant_id": "e74a48ec-6527-410e-b576-913b477f19ba",
                     *         "title": "string",
                     *         "tags": {
                     *           "property1": "string",
                     *           "property2": "string"
                     *         },
                     *         "status": "processing",
                     *         "language": "string",
                     *         "anonymized": true,
                     *         "source": "text",
                     *         "content_bytes": 0,
                     *         "chunk_count": 0,
                     *         "file": {
                     *           "content_type": "string",
                     *           "file_name": "string",
                     *           "size_bytes": 0
                     *         },
                     *         "error": "string",
                     *         "created_at": "2019-08-24T14:15:22Z",
                     *         "updated_at": "2019-08-24T14:15:22Z"
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["DocumentSummary"][];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (also for resources of other tenants) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    query: {
        parameters: {
            query?: never;
            header?: {
                /** @description End user the query is made for (max 256 chars). */
                "x-user-id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "query": "How many days of paid leave do I get?",
                 *       "top_k": 5,
                 *       "filters": {
                 *         "tags.team": "hr"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["QueryRequest"];
            };
        };
        responses: {
            /** @description Results, best first */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "results": [
                     *         {
                     *           "content": "string",
                     *           "score": 0,
                     *           "source": "string",
                     *           "document_id": "b792e8ae-2cb4-4209-85b9-32be4c2fcdd6",
                     *           "chunk_id": "55e808e1-8ddc-49f1-92c9-6bbdcdff1c83",
                     *           "knowledge_base_id": "7f7aee98-aff7-4ac1-b5ab-74100459287d",
                     *           "document_title": "string",
                     *           "chunk_index": 0,
                     *           "document_tags": {
                     *             "property1": "string",
                     *             "property2": "string"
                     *           },
                     *           "source_record_id": "string",
                     *           "metadata": {
                     *             "property1": null,
                     *             "property2": null
                     *           },
                     *           "content_original": "string",
                     *           "untranslated": {
                     *             "language": "string",
                     *             "reason": "unsupported_pair"
                     *           }
                     *         }
                     *       ],
                     *       "metadata": {
                     *         "translation_config_source": "string",
                     *         "translation_latency_ms": 0
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["QueryResponse"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payment required or quota exhausted */
            402: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role too low or not allowed on this plan */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (also for resources of other tenants) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Temporarily unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    generateReport: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "transcript": "Anna: Welcome, everyone. Today we decide on the new leave policy.\nBen: I propose 25 days of paid leave a year, with five days carried over.\nAnna: Agreed. Ben drafts the policy by Friday."
                 *     }
                 */
                "application/json": {
                    /** @description Signing secret, 16-256 characters; required with callback_url. whsec_<base64> or any string. */
                    callback_secret?: string;
                    /** @description https URL the result is POSTed to, signed (Standard Webhooks). */
                    callback_url?: string;
                    /** @description The text to report on; at most REPORT_MAX_CHARS characters (default 200,000). */
                    transcript: string;
                };
            };
        };
        responses: {
            /** @description Accepted: the job runs asynchronously; poll GET /v1/jobs/{job_id} or wait for the callback. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "job_id": "453bd7d7-5355-4d6d-a38e-d9e7eb218c3f"
                     *     }
                     */
                    "application/json": components["schemas"]["AddonJobAccepted"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role too low or not allowed on this plan */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Temporarily unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listSubTenants: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Sub-tenants, oldest first */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "497f6eca-6276-4993-bfeb-53cbbbba6f08",
                     *         "name": "string",
                     *         "external_id": "string",
                     *         "max_total_chunks": 0,
                     *         "max_knowledge_bases": 0,
                     *         "max_documents": 0,
                     *         "max_document_size_bytes": 0,
                     *         "query_rate_limit_per_min": 0,
                     *         "included_queries_per_period": 0,
                     *         "storage_quota_bytes": 0,
                     *         "per_user_rate_limit_per_min": 0,
                     *         "translation_config": {
                     *           "query_translation": "auto",
                     *           "response_translation": "always",
                     *           "preferred_language": "en",
                     *           "fallback_behaviour": "passthrough"
                     *         },
                     *         "created_at": "2019-08-24T14:15:22Z",
                     *         "updated_at": "2019-08-24T14:15:22Z",
                     *         "usage": {
                     *           "chunks": {
                     *             "used": 0,
                     *             "limit": 0
                     *           },
                     *           "documents": {
                     *             "used": 0,
                     *             "limit": 0
                     *           },
                     *           "queries_this_period": {
                     *             "used": 0,
                     *             "limit": 0
                     *           },
                     *           "storage_bytes": {
                     *             "used": 0,
                     *             "limit": 0
                     *           },
                     *           "active_users": 0,
                     *           "knowledge_bases": 0
                     *         }
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["SubTenant"][];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role too low or not allowed on this plan */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createSubTenant: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Acme Retail",
                 *       "external_id": "acme-retail",
                 *       "max_documents": 1000,
                 *       "storage_quota_bytes": 1073741824
                 *     }
                 */
                "application/json": components["schemas"]["CreateSubTenantRequest"];
            };
        };
        responses: {
            /** @description Created (or, with status 200, the existing record of that external_id) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "497f6eca-6276-4993-bfeb-53cbbbba6f08",
                     *       "name": "string",
                     *       "external_id": "string",
                     *       "max_total_chunks": 0,
                     *       "max_knowledge_bases": 0,
                     *       "max_documents": 0,
                     *       "max_document_size_bytes": 0,
                     *       "query_rate_limit_per_min": 0,
                     *       "included_queries_per_period": 0,
                     *       "storage_quota_bytes": 0,
                     *       "per_user_rate_limit_per_min": 0,
                     *       "translation_config": {
                     *         "query_translation": "auto",
                     *         "response_translation": "always",
                     *         "preferred_language": "en",
                     *         "fallback_behaviour": "passthrough"
                     *       },
                     *       "created_at": "2019-08-24T14:15:22Z",
                     *       "updated_at": "2019-08-24T14:15:22Z",
                     *       "usage": {
                     *         "chunks": {
                     *           "used": 0,
                     *           "limit": 0
                     *         },
                     *         "documents": {
                     *           "used": 0,
                     *           "limit": 0
                     *         },
                     *         "queries_this_period": {
                     *           "used": 0,
                     *           "limit": 0
                     *         },
                     *         "storage_bytes": {
                     *           "used": 0,
                     *           "limit": 0
                     *         },
                     *         "active_users": 0,
                     *         "knowledge_bases": 0
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["SubTenant"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role too low or not allowed on this plan */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getSubTenant: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The sub-tenant */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "497f6eca-6276-4993-bfeb-53cbbbba6f08",
                     *       "name": "string",
                     *       "external_id": "string",
                     *       "max_total_chunks": 0,
                     *       "max_knowledge_bases": 0,
                     *       "max_documents": 0,
                     *       "max_document_size_bytes": 0,
                     *       "query_rate_limit_per_min": 0,
                     *       "included_queries_per_period": 0,
                     *       "storage_quota_bytes": 0,
                     *       "per_user_rate_limit_per_min": 0,
                     *       "translation_config": {
                     *         "query_translation": "auto",
                     *         "response_translation": "always",
                     *         "preferred_language": "en",
                     *         "fallback_behaviour": "passthrough"
                     *       },
                     *       "created_at": "2019-08-24T14:15:22Z",
                     *       "updated_at": "2019-08-24T14:15:22Z",
                     *       "usage": {
                     *         "chunks": {
                     *           "used": 0,
                     *           "limit": 0
                     *         },
                     *         "documents": {
                     *           "used": 0,
                     *           "limit": 0
                     *         },
                     *         "queries_this_period": {
                     *           "used": 0,
                     *           "limit": 0
                     *         },
                     *         "storage_bytes": {
                     *           "used": 0,
                     *           "limit": 0
                     *         },
                     *         "active_users": 0,
                     *         "knowledge_bases": 0
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["SubTenant"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role too low or not allowed on this plan */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (also for resources of other tenants) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteSubTenant: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role too low or not allowed on this plan */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (also for resources of other tenants) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateSubTenant: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "max_documents": 2000,
                 *       "query_rate_limit_per_min": 60
                 *     }
                 */
                "application/json": components["schemas"]["UpdateSubTenantRequest"];
            };
        };
        responses: {
            /** @description The updated sub-tenant */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "497f6eca-6276-4993-bfeb-53cbbbba6f08",
                     *       "name": "string",
                     *       "external_id": "string",
                     *       "max_total_chunks": 0,
                     *       "max_knowledge_bases": 0,
                     *       "max_documents": 0,
                     *       "max_document_size_bytes": 0,
                     *       "query_rate_limit_per_min": 0,
                     *       "included_queries_per_period": 0,
                     *       "storage_quota_bytes": 0,
                     *       "per_user_rate_limit_per_min": 0,
                     *       "translation_config": {
                     *         "query_translation": "auto",
                     *         "response_translation": "always",
                     *         "preferred_language": "en",
                     *         "fallback_behaviour": "passthrough"
                     *       },
                     *       "created_at": "2019-08-24T14:15:22Z",
                     *       "updated_at": "2019-08-24T14:15:22Z",
                     *       "usage": {
                     *         "chunks": {
                     *           "used": 0,
                     *           "limit": 0
                     *         },
                     *         "documents": {
                     *           "used": 0,
                     *           "limit": 0
                     *         },
                     *         "queries_this_period": {
                     *           "used": 0,
                     *           "limit": 0
                     *         },
                     *         "storage_bytes": {
                     *           "used": 0,
                     *           "limit": 0
                     *         },
                     *         "active_users": 0,
                     *         "knowledge_bases": 0
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["SubTenant"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role too low or not allowed on this plan */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (also for resources of other tenants) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listSubTenantKeys: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Keys (never the keys themselves) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "497f6eca-6276-4993-bfeb-53cbbbba6f08",
                     *         "name": "string",
                     *         "role": "read",
                     *         "sub_tenant_id": "e74a48ec-6527-410e-b576-913b477f19ba",
                     *         "key_hint": "string",
                     *         "created_at": "2019-08-24T14:15:22Z",
                     *         "last_used_at": "2019-08-24T14:15:22Z"
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["ApiKey"][];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role too low or not allowed on this plan */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (also for resources of other tenants) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createSubTenantKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "role": "read",
                 *       "name": "Acme Retail search"
                 *     }
                 */
                "application/json": components["schemas"]["CreateSubTenantKeyRequest"];
            };
        };
        responses: {
            /** @description Created; the key is shown only here */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "key": "string",
                     *       "id": "497f6eca-6276-4993-bfeb-53cbbbba6f08",
                     *       "role": "read",
                     *       "sub_tenant_id": "e74a48ec-6527-410e-b576-913b477f19ba"
                     *     }
                     */
                    "application/json": {
                        /** Format: uuid */
                        id: string;
                        key: string;
                        /** @enum {string} */
                        role: "read" | "write";
                        /** Format: uuid */
                        sub_tenant_id: string;
                    };
                };
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role too low or not allowed on this plan */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (also for resources of other tenants) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    revokeSubTenantKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                key_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role too low or not allowed on this plan */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (also for resources of other tenants) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getSubTenantUsage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Usage (limit null: only the parent’s applies) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "chunks": {
                     *         "used": 0,
                     *         "limit": 0
                     *       },
                     *       "documents": {
                     *         "used": 0,
                     *         "limit": 0
                     *       },
                     *       "queries_this_period": {
                     *         "used": 0,
                     *         "limit": 0
                     *       },
                     *       "storage_bytes": {
                     *         "used": 0,
                     *         "limit": 0
                     *       },
                     *       "active_users": 0
                     *     }
                     */
                    "application/json": components["schemas"]["SubTenantUsage"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role too low or not allowed on this plan */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (also for resources of other tenants) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    setUserPreferences: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "translation_config": {
                 *         "preferred_language": "nl",
                 *         "response_translation": "on_request"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["UserPreferences"];
            };
        };
        responses: {
            /** @description The stored preferences */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "sub_tenant_id": "e74a48ec-6527-410e-b576-913b477f19ba",
                     *       "user_id": "string",
                     *       "translation_config": {
                     *         "query_translation": "auto",
                     *         "response_translation": "always",
                     *         "preferred_language": "en",
                     *         "fallback_behaviour": "passthrough"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** Format: uuid */
                        sub_tenant_id: string;
                        translation_config: components["schemas"]["TranslationConfig"];
                        user_id: string;
                    };
                };
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role too low or not allowed on this plan */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (also for resources of other tenants) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getTenantSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Settings */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "translation_config": {
                     *         "query_translation": "auto",
                     *         "response_translation": "always",
                     *         "preferred_language": "en",
                     *         "fallback_behaviour": "passthrough"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["TenantSettings"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role too low or not allowed on this plan */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateTenantSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "translation_config": {
                 *         "query_translation": "auto",
                 *         "response_translation": "on_request",
                 *         "preferred_language": "en"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["UpdateTenantSettingsRequest"];
            };
        };
        responses: {
            /** @description The stored settings */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "translation_config": {
                     *         "query_translation": "auto",
                     *         "response_translation": "always",
                     *         "preferred_language": "en",
                     *         "fallback_behaviour": "passthrough"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["TenantSettings"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role too low or not allowed on this plan */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    transcribe: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "language": "en"
                 *     }
                 */
                "multipart/form-data": {
                    /**
                     * Format: binary
                     * @description WAV, MP3, OGG/Opus, FLAC or M4A; the request is at most 25 MB.
                     */
                    audio: string;
                    callback_secret?: string;
                    callback_url?: string;
                    /**
                     * @description Default auto.
                     * @enum {string}
                     */
                    language?: "auto" | "en" | "nl" | "fr" | "de" | "es" | "it" | "bg" | "ro";
                };
            };
        };
        responses: {
            /** @description Accepted: the job runs asynchronously; poll GET /v1/jobs/{job_id} or wait for the callback. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "job_id": "453bd7d7-5355-4d6d-a38e-d9e7eb218c3f"
                     *     }
                     */
                    "application/json": components["schemas"]["AddonJobAccepted"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role too low or not allowed on this plan */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Temporarily unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    translate: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "text": "Staff get 25 days of paid leave a year.",
                 *       "source": "en",
                 *       "target": "es"
                 *     }
                 */
                "application/json": components["schemas"]["TranslateRequest"];
            };
        };
        responses: {
            /** @description The translation */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "translated_text": "string",
                     *       "source": "en",
                     *       "target": "en",
                     *       "latency_ms": 0
                     *     }
                     */
                    "application/json": components["schemas"]["TranslateResponse"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role too low or not allowed on this plan */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Temporarily unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    translateBatch: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "texts": [
                 *         "Paid leave",
                 *         "Remote work is allowed two days a week."
                 *       ],
                 *       "source": "en",
                 *       "target": "es"
                 *     }
                 */
                "application/json": components["schemas"]["TranslateBatchRequest"];
            };
        };
        responses: {
            /** @description The translations, in order */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "translations": [
                     *         "string"
                     *       ],
                     *       "source": "en",
                     *       "target": "en",
                     *       "latency_ms": 0
                     *     }
                     */
                    "application/json": components["schemas"]["TranslateBatchResponse"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role too low or not allowed on this plan */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Temporarily unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getTranslationHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Status of the 56 ordered pairs */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "healthy",
                     *       "models_loaded": 0,
                     *       "models_total": 0,
                     *       "engines": [
                     *         "deepl"
                     *       ],
                     *       "models": [
                     *         {
                     *           "source": "en",
                     *           "target": "en",
                     *           "status": "loaded",
                     *           "engine": "deepl",
                     *           "pivot": "en"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["TranslationHealth"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role too low or not allowed on this plan */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listTranslationLanguages: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Available pairs */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "source": "en",
                     *         "target": "en"
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["LanguagePair"][];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role too low or not allowed on this plan */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getUsage: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Usage */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "chunks": {
                     *         "used": 0,
                     *         "limit": 0,
                     *         "percent": 0
                     *       },
                     *       "documents": {
                     *         "used": 0,
                     *         "limit": 0,
                     *         "percent": 0
                     *       },
                     *       "storage_bytes": {
                     *         "used": 0,
                     *         "limit": 0,
                     *         "percent": 0
                     *       },
                     *       "queries_this_period": {
                     *         "used": 0,
                     *         "limit": 0,
                     *         "percent": 0
                     *       },
                     *       "knowledge_bases": {
                     *         "used": 0,
                     *         "limit": 0
                     *       },
                     *       "query_rate_limit_per_min": 0
                     *     }
                     */
                    "application/json": components["schemas"]["Usage"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getUsageBreakdown: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Breakdown */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "sub_tenants": [
                     *         {
                     *           "sub_tenant_id": "e74a48ec-6527-410e-b576-913b477f19ba",
                     *           "name": "string",
                     *           "chunks": 0,
                     *           "queries_this_period": 0,
                     *           "active_users": 0
                     *         }
                     *       ],
                     *       "total_chunks": 0
                     *     }
                     */
                    "application/json": {
                        sub_tenants: {
                            active_users: number;
                            chunks: number;
                            name: string;
                            queries_this_period: number;
                            /** Format: uuid */
                            sub_tenant_id: string;
                        }[];
                        /** @description All chunks of the tenant, its own included. */
                        total_chunks: number;
                    };
                };
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role too low or not allowed on this plan */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getActiveUsers: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One entry per sub-tenant */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "sub_tenant_id": "e74a48ec-6527-410e-b576-913b477f19ba",
                     *         "name": "string",
                     *         "active_users": 0
                     *       }
                     *     ]
                     */
                    "application/json": {
                        active_users: number;
                        name: string;
                        /** Format: uuid */
                        sub_tenant_id: string;
                    }[];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role too low or not allowed on this plan */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
}
