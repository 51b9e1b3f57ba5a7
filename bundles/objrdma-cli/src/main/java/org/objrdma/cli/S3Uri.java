package org.objrdma.cli;

/** {@code s3://bucket/key}. */
record S3Uri(String bucket, String key) {

    static boolean looksLikeOne(String text) {
        return text != null && text.startsWith("s3://");
    }

    /** @throws UserError (usage) naming the expected form */
    static S3Uri parse(String text) throws UserError {
        if (!looksLikeOne(text)) {
            throw new UserError(ExitCodes.USAGE, "'" + text + "' is not an S3 URI: expected s3://BUCKET/KEY");
        }
        String rest = text.substring("s3://".length());
        int slash = rest.indexOf('/');
        if (slash <= 0 || slash == rest.length() - 1) {
            throw new UserError(ExitCodes.USAGE, "'" + text + "' names no object: expected s3://BUCKET/KEY");
        }
        return new S3Uri(rest.substring(0, slash), rest.substring(slash + 1));
    }

    @Override
    public String toString() {
        return "s3://" + bucket + "/" + key;
    }
}
