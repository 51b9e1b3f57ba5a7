package org.objrdma.cli;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.ProfileCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.profiles.Profile;
import software.amazon.awssdk.profiles.ProfileFile;
import software.amazon.awssdk.regions.Region;

/**
 * Endpoint, region and credential, found the way the aws CLI finds them, from an environment (the process's, or a
 * test's) and the shared files, parsed by the SDK's own {@link ProfileFile} and {@link ProfileCredentialsProvider}:
 *
 * <ul>
 *   <li>profile: {@code --profile}, else {@code AWS_PROFILE}, else {@code default};</li>
 *   <li>files: {@code AWS_CONFIG_FILE} (default {@code ~/.aws/config}) and {@code AWS_SHARED_CREDENTIALS_FILE}
 *       (default {@code ~/.aws/credentials});</li>
 *   <li>credential: with an explicit {@code --profile}, that profile's; else {@code AWS_ACCESS_KEY_ID} +
 *       {@code AWS_SECRET_ACCESS_KEY} (+ {@code AWS_SESSION_TOKEN}) when set; else the profile's;</li>
 *   <li>region: {@code --region}, {@code AWS_REGION}, {@code AWS_DEFAULT_REGION}, the profile's {@code region},
 *       else {@code us-east-1};</li>
 *   <li>endpoint: {@code --endpoint-url}, {@code AWS_ENDPOINT_URL_S3}, {@code AWS_ENDPOINT_URL}, the profile's
 *       {@code endpoint_url}; there is no default (the gateway is not AWS);</li>
 *   <li>CA bundle (an https endpoint's trust): {@code --ca-bundle}, {@code AWS_CA_BUNDLE}, the profile's
 *       {@code ca_bundle}; else the JDK's default trust store ({@code caBundle} null).</li>
 * </ul>
 */
record ClientConfig(URI endpoint, Region region, AwsCredentials credentials, String profile, CaBundle caBundle) {

    /** The command line's part: each may be null. */
    record Flags(String endpointUrl, String profile, String region, String caBundle) {
        Flags(String endpointUrl, String profile, String region) {
            this(endpointUrl, profile, region, null);
        }
    }

    static ClientConfig resolve(Flags flags, Map<String, String> env) throws UserError {
        String profileName = first(flags.profile(), env.get("AWS_PROFILE"), "default");
        Path home = Path.of(first(env.get("HOME"), System.getProperty("user.home")));
        Path configFile = Path.of(first(env.get("AWS_CONFIG_FILE"), home.resolve(".aws/config").toString()));
        Path credentialsFile = Path.of(first(env.get("AWS_SHARED_CREDENTIALS_FILE"),
                home.resolve(".aws/credentials").toString()));
        ProfileFile files = profiles(configFile, credentialsFile);
        Optional<Profile> profile = files.profile(profileName);
        boolean explicitProfile = flags.profile() != null || env.get("AWS_PROFILE") != null;
        if (explicitProfile && profile.isEmpty()) {
            throw new UserError(ExitCodes.CONFIG, "the profile '" + profileName + "' is in neither " + configFile
                    + " nor " + credentialsFile);
        }

        AwsCredentials credentials = null;
        if (flags.profile() == null) {
            credentials = fromEnvironment(env);
        }
        if (credentials == null) {
            String hint = "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or add aws_access_key_id /"
                    + " aws_secret_access_key to the profile '" + profileName + "' in " + credentialsFile;
            if (profile.isEmpty()) {
                throw new UserError(ExitCodes.CONFIG, "no credential: " + hint);
            }
            try (ProfileCredentialsProvider p = ProfileCredentialsProvider.builder().profileFile(files)
                    .profileName(profileName).build()) {
                credentials = p.resolveCredentials();
            } catch (SdkClientException e) {
                throw new UserError(ExitCodes.CONFIG, "no usable credential in the profile '" + profileName + "' ("
                        + e.getMessage().replaceAll(": ProfileFile\\(.*", "") + "): " + hint);
            }
        }

        String region = first(flags.region(), env.get("AWS_REGION"), env.get("AWS_DEFAULT_REGION"),
                profile.flatMap(p -> p.property("region")).orElse(null), "us-east-1");
        String endpoint = first(flags.endpointUrl(), env.get("AWS_ENDPOINT_URL_S3"), env.get("AWS_ENDPOINT_URL"),
                profile.flatMap(p -> p.property("endpoint_url")).orElse(null));
        if (endpoint == null) {
            throw new UserError(ExitCodes.CONFIG, "no endpoint: pass --endpoint-url http://HOST:PORT or set"
                    + " AWS_ENDPOINT_URL (or endpoint_url in the profile '" + profileName + "')");
        }
        String caBundle = first(flags.caBundle(), env.get("AWS_CA_BUNDLE"),
                profile.flatMap(p -> p.property("ca_bundle")).orElse(null));
        return new ClientConfig(endpoint(endpoint), Region.of(region), credentials, profileName,
                caBundle == null ? null : CaBundle.load(Path.of(caBundle)));
    }

    private static ProfileFile profiles(Path config, Path credentials) throws UserError {
        ProfileFile.Aggregator all = ProfileFile.aggregator();
        try {
            if (Files.isRegularFile(config)) {
                all.addFile(ProfileFile.builder().content(config).type(ProfileFile.Type.CONFIGURATION).build());
            }
            if (Files.isRegularFile(credentials)) {
                all.addFile(ProfileFile.builder().content(credentials).type(ProfileFile.Type.CREDENTIALS).build());
            }
        } catch (RuntimeException e) { // the SDK's parser refuses a malformed file
            throw new UserError(ExitCodes.CONFIG, "cannot read the AWS profile files: " + e.getMessage());
        }
        return all.build();
    }

    private static AwsCredentials fromEnvironment(Map<String, String> env) throws UserError {
        String key = blankToNull(env.get("AWS_ACCESS_KEY_ID"));
        String secret = blankToNull(env.get("AWS_SECRET_ACCESS_KEY"));
        if (key == null && secret == null) {
            return null;
        }
        if (key == null || secret == null) {
            throw new UserError(ExitCodes.CONFIG, "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set together");
        }
        String token = blankToNull(env.get("AWS_SESSION_TOKEN"));
        return token == null ? AwsBasicCredentials.create(key, secret) : AwsSessionCredentials.create(key, secret, token);
    }

    private static URI endpoint(String text) throws UserError {
        try {
            URI u = new URI(text.strip());
            if (!("http".equals(u.getScheme()) || "https".equals(u.getScheme())) || u.getHost() == null
                    || (u.getPath() != null && !u.getPath().isEmpty() && !u.getPath().equals("/"))) {
                throw new URISyntaxException(text, "expected http[s]://HOST[:PORT]");
            }
            return u;
        } catch (URISyntaxException e) {
            throw new UserError(ExitCodes.CONFIG, "bad endpoint '" + text + "': expected http[s]://HOST[:PORT]");
        }
    }

    private static String first(String... values) {
        for (String v : values) {
            if (blankToNull(v) != null) {
                return v.strip();
            }
        }
        return null;
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
