package org.objrdma.verbs.internal.ffi;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs {@code layout} (src/test/native/layout.c built by the Maven build) and parses its facts. */
final class LayoutTool {
    private LayoutTool() {
    }

    private static Map<String, Long> facts;

    static synchronized Map<String, Long> facts() throws IOException, InterruptedException {
        if (facts == null) {
            String tool = System.getProperty("objrdma.verbs.layout.tool");
            if (tool == null || !Files.isExecutable(Path.of(tool))) {
                throw new IllegalStateException("objrdma.verbs.layout.tool must name the layout dumper built from"
                        + " src/test/native/layout.c (run the tests through Maven), was " + tool);
            }
            Process p = new ProcessBuilder(tool).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException(tool + " failed: " + out);
            }
            facts = IbvLayouts.parseFacts(out);
        }
        return facts;
    }
}
