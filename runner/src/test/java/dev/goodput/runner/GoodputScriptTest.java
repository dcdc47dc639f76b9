package dev.goodput.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * {@code ./goodput} rebuilds when a source changed: its {@code find} must look into every module the
 * build has, nested ones (producer/capture, ...) included, or an edit there would run a stale jar (#64).
 */
class GoodputScriptTest {

    @Test
    void theLauncherLooksForChangesInEveryModule() throws Exception {
        final String pom = Files.readString(Path.of("../pom.xml"));
        final List<String> modules = new ArrayList<>();
        final Matcher m = Pattern.compile("<module>([^<]+)</module>").matcher(pom);
        while (m.find()) {
            modules.add(m.group(1));
        }
        assertThat(modules).contains("producer/capture", "runner");
        final String script = Files.readString(Path.of("../goodput"));
        final Matcher find = Pattern.compile("find (.*?) -newer").matcher(script);
        assertThat(find.find()).as("the launcher's find").isTrue();
        final List<PathMatcher> globs = new ArrayList<>();
        for (String g : find.group(1).trim().split("\\s+")) {
            globs.add(FileSystems.getDefault().getPathMatcher("glob:" + g.replaceFirst("^\\./", "")));
        }
        for (String module : modules) {
            for (String part : List.of("pom.xml", "src/main")) {
                final Path p = Path.of(module, part);
                assertThat(globs.stream().anyMatch(g -> g.matches(p))).as("./goodput's find covers %s", p).isTrue();
            }
        }
    }
}
