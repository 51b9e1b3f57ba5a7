package org.objrdma.store.s3.internal;

import java.util.Map;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Skips, visibly and with the reason, the contract cases that fail against Ceph RGW 16.2 (Debian bookworm) and
 * that the adapter does not cover yet. Each reason was seen in RGW's own log (debug_rgw 20) while the case ran.
 */
final class RgwContractGaps implements ExecutionCondition {
    private static final String NO_VERSIONS = "the adapter does not turn on bucket versioning on the remote, so RGW"
            + " keeps no old version of an overwritten object (reads are If-Match pinned: refused with InternalError,"
            + " never mixed); turning it on needs a lifecycle rule for old versions - not built yet";
    private static final String ALL_PARTS = "RGW 16.2 refuses a CompleteMultipartUpload that does not name every"
            + " uploaded part (rgw log: 'total parts mismatch: have: 4 expected: 3', InvalidPart); this case completes"
            + " with parts left out. Serving it needs a repack into a new upload (UploadPartCopy) - not built yet";
    static final Map<String, String> GAPS = Map.of(
            "anOpenHandleKeepsItsVersionThroughOverwriteAndDelete", NO_VERSIONS,
            "readersSeeTheOldOrTheNewObjectNeverAMix", NO_VERSIONS,
            "thePartLayoutIsTheOpenedVersions", NO_VERSIONS,
            "multipartUploadCompletesWithS3sETagAndChecksum", ALL_PARTS,
            "completeRefusesBadPartLists", ALL_PARTS);

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        String reason = GAPS.get(context.getTestMethod().map(m -> m.getName()).orElse(""));
        if (reason != null && Boolean.getBoolean("objrdma.rgw.gaps.run")) {
            return ConditionEvaluationResult.enabled("a known gap, run to see it fail (-Dobjrdma.rgw.gaps.run=true)");
        }
        return reason != null ? ConditionEvaluationResult.disabled("not served on Ceph RGW 16.2: " + reason)
                : ConditionEvaluationResult.enabled("runs against Ceph RGW");
    }
}
