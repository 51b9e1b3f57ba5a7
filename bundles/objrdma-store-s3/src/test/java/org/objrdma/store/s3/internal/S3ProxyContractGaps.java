package org.objrdma.store.s3.internal;

import java.util.Map;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Skips, visibly and with the reason, the contract cases that s3proxy 4.1.0 (filesystem backend) makes
 * impossible through any S3 client; {@link S3ProxyLimitsTest} proves each reason with a bare SDK client.
 * Every other case of the suite runs unchanged.
 */
final class S3ProxyContractGaps implements ExecutionCondition {
    static final Map<String, String> GAPS = Map.of(
            "keysThatLookLikePathsOrTheStoresOwnFiles",
            "s3proxy refuses keys '/leading' and 'a//b' (403, signature over a collapsed path), '..' and"
                    + " '../../escape' (400), 1 024-byte names (500, file-name limit), and stores 'trailing/' empty",
            "listingWithPrefixDelimiterAndPages",
            "s3proxy's filesystem backend cannot hold 'a' and 'a/b' at once (500)",
            "listingIsInUtf8ByteOrderNotUtf16Order",
            "s3proxy lists in UTF-16 order; a client cannot reorder across pages the server cut",
            "anOpenHandleKeepsItsVersionThroughOverwriteAndDelete",
            "s3proxy has no bucket versioning (501), so an overwritten version is gone; the adapter pins reads"
                    + " by version id on versioned remotes and fails cleanly (never mixes) on others",
            "thePartLayoutIsTheOpenedVersions",
            "the old handle's part layout is right (PartLayouts is keyed by the opened ETag), but reading that part's"
                    + " bytes after the overwrite needs the old version, and s3proxy keeps none (no versioning)",
            "readersSeeTheOldOrTheNewObjectNeverAMix",
            "two reads through one handle need the old version to survive an overwrite: no versioning in s3proxy;"
                    + " each read is If-Match pinned, so a mix is refused, not returned");

    /** Cases the adapter itself does not serve yet — not s3proxy's doing. None since the part layouts (issue 19). */
    static final Map<String, String> ADAPTER_GAPS = Map.of();

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        String name = context.getTestMethod().map(m -> m.getName()).orElse("");
        if (ADAPTER_GAPS.containsKey(name)) {
            return ConditionEvaluationResult.disabled("not implemented by the S3 adapter yet: " + ADAPTER_GAPS.get(name));
        }
        String reason = GAPS.get(name);
        return reason != null ? ConditionEvaluationResult.disabled("impossible on s3proxy 4.1.0: " + reason)
                : ConditionEvaluationResult.enabled("runs against s3proxy");
    }
}
