package dev.goodput.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import dev.goodput.kafka.EmbeddedKafka;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Exit codes as Kafka's tools have them: 2 for a refused start, 1 for an address that does not answer. */
class MainTest {

    private static Result run(String... args) {
        final PrintStream err = System.err;
        final ByteArrayOutputStream buf = new ByteArrayOutputStream();
        System.setErr(new PrintStream(buf, true, StandardCharsets.UTF_8));
        try {
            final int rc = Main.run(args);
            return new Result(rc, buf.toString(StandardCharsets.UTF_8));
        } finally {
            System.setErr(err);
        }
    }

    private record Result(int code, String err) {
    }

    @Test
    void aContractWithABadFieldExitsTwoNamingTheField(@TempDir Path dir) throws Exception {
        final Path bad = dir.resolve("contract.yaml");
        Files.writeString(bad, Files.readString(Path.of("../config/contract.yaml")).replace("gpu_count: 1", "gpu_count: many"));
        final Result r = run("demo", "--contract", bad.toString(), "--duration", "1s");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("hardware.gpu_count: expected a whole number");
    }

    @Test
    void aSourceRefusesAContractOfTheOtherWayOfSeeingTraffic() {
        // checked before anything connects: the broker here does not exist
        final Result produce = run("produce", "--simulate", "--contract", "../config/contract-spans.yaml", "--bootstrap-server", "127.0.0.1:1");
        assertThat(produce.code()).isEqualTo(2);
        assertThat(produce.err()).contains("concurrency_pattern.arrival is observed_server_side").contains("goodput spans");
        final Result spans = run("spans", "--contract", "../config/contract.yaml", "--bootstrap-server", "127.0.0.1:1");
        assertThat(spans.code()).isEqualTo(2);
        assertThat(spans.err()).contains("concurrency_pattern.arrival is poisson").contains("observed_server_side");
    }

    @Test
    void aListenAddressWithoutAPortIsRefusedAtStart() {
        for (String command : new String[] {"spans", "proxy"}) {
            final Result r = command.equals("proxy") ? run(command, "--listen", "localhost", "--upstream", "http://127.0.0.1:1")
                    : run(command, "--listen", "localhost:http");
            assertThat(r.code()).as(command).isEqualTo(2);
            assertThat(r.err()).as(command).contains("--listen wants host:port");
        }
    }

    @Test
    void anUnknownFlagOrBadScenarioExitsTwo() {
        assertThat(run("demo", "--no-such-flag").code()).isEqualTo(2);
        final Result r = run("produce", "--simulate", "--scenario", "p64-nonsense", "--contract", "../config/contract.yaml");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("p64-nonsense");
        // checked before anything connects: the broker here does not exist
        final Result p = run("produce", "--simulate", "--timing-priority", "fast", "--bootstrap-server", "127.0.0.1:1",
                "--contract", "../config/contract.yaml");
        assertThat(p.code()).isEqualTo(2);
        assertThat(p.err()).contains("--timing-priority").contains("'fast'").contains("auto, realtime, normal");
    }

    @Test
    void anUnreachableBrokerIsOneLineNamingTheAddress() {
        final String address = "127.0.0.1:" + EmbeddedKafka.freePort();
        final Result r = run("streams", "--bootstrap-server", address, "--contract", "../config/contract.yaml");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err().strip().lines().count()).isEqualTo(1);
        // nothing listens there: said at once, not after the 10 s answer timeout
        assertThat(r.err()).contains("Kafka at " + address + ": " + address + " refused the connection");
    }

    @Test
    void zeroAndNegativeLengthsAreRefusedAtStartNamingTheFlag() {
        final String[][] cases = {
            {"replay", "--replay-id", "x", "--window", "0s", "--bootstrap-server", "127.0.0.1:1", "--contract", "../config/contract.yaml"},
            {"replay", "--replay-id", "x", "--grace", "-1s", "--bootstrap-server", "127.0.0.1:1", "--contract", "../config/contract.yaml"},
            {"streams", "--window", "-10s", "--bootstrap-server", "127.0.0.1:1", "--contract", "../config/contract.yaml"},
            {"demo", "--scenario-seconds", "-5", "--contract", "../config/contract.yaml", "--matrix", "../config/scenarios.yaml"},
            {"demo", "--duration", "0", "--contract", "../config/contract.yaml", "--matrix", "../config/scenarios.yaml"},
            {"produce", "--simulate", "--duration", "0s", "--contract", "../config/contract.yaml", "--bootstrap-server", "127.0.0.1:1"},
            {"produce", "--simulate", "--timeout", "-3", "--contract", "../config/contract.yaml", "--bootstrap-server", "127.0.0.1:1"},
            {"sink", "--rolling", "1m,0s", "--bootstrap-server", "127.0.0.1:1", "--contract", "../config/contract.yaml"},
        };
        for (String[] args : cases) {
            final Result r = run(args);
            final String flag = Arrays.stream(args).filter(a -> a.startsWith("--") && !a.equals("--replay-id")
                    && !a.equals("--bootstrap-server") && !a.equals("--contract") && !a.equals("--simulate") && !a.equals("--matrix")).findFirst().orElseThrow();
            assertThat(r.code()).as(String.join(" ", args) + ": " + r.err()).isEqualTo(2);
            assertThat(r.err()).as(String.join(" ", args)).contains(flag).containsPattern("more than 0|0 or more");
        }
    }

    @Test
    void aBadPriceFileIsNamedAsOneAndExitsTwo(@TempDir Path dir) throws Exception {
        final Path prices = dir.resolve("prices.yaml");
        Files.writeString(prices, "prices:\n  - {price_key: a\n");
        final Result r = run("demo", "--prices", prices.toString(), "--contract", "../config/contract.yaml", "--matrix",
                "../config/scenarios.yaml", "--duration", "1s");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("invalid price file " + prices).doesNotContain("invalid contract").contains(prices + ":");
    }

    @Test
    void durationsInTheFormsTheHelpShows() {
        final DurationConverter c = new DurationConverter();
        assertThat(c.convert("30").toSeconds()).as("a bare number is seconds").isEqualTo(30);
        assertThat(c.convert("500ms").toMillis()).isEqualTo(500);
        assertThat(c.convert("30s").toSeconds()).isEqualTo(30);
        assertThat(c.convert("5m").toSeconds()).isEqualTo(300);
        assertThat(c.convert("2h").toSeconds()).isEqualTo(7200);
        // produce takes the same forms as demo: --duration 30 and --duration 30s are one thing
        for (String d : new String[] {"30", "30s", "0.5m"}) {
            final var parsed = Main.commandLine().parseArgs("produce", "--duration", d);
            assertThat(parsed.subcommand().matchedOption("--duration").<Double>getValue()).isEqualTo(30.0);
        }
    }

    /** A bad value says what is wrong and where the flags are, in a few lines: the usage no longer scrolls it away. */
    @Test
    void aBadValueIsItsMessageAndAPointerToHelpNotTheUsage() {
        final Result r = run("demo", "--duration", "soon", "--contract", "../config/contract.yaml");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("'soon' is not a duration").contains("./goodput demo --help lists every flag")
                .doesNotContain("Usage:");
        assertThat(r.err().strip().lines().count()).isLessThanOrEqualTo(3);
        final Result u = run("demo", "--durashun", "5s");
        assertThat(u.code()).isEqualTo(2);
        assertThat(u.err()).contains("--durashun").contains("--duration").doesNotContain("Usage:");
    }

    @Test
    void aTargetWithoutASchemeIsNamedWithTheFix() {
        final Result r = run("produce", "--target", "127.0.0.1:8000/v1", "--contract", "../config/contract.yaml");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("--target 127.0.0.1:8000/v1 has no scheme: give http://127.0.0.1:8000/v1")
                .doesNotContain("URISyntaxException").doesNotContain("Illegal character");
    }

    @Test
    void anApiKeyVariableThatIsNotSetIsRefused() {
        final String name = "GOODPUT_TEST_KEY_THAT_IS_NOT_SET";
        assertThat(System.getenv(name)).isNull();
        final Result r = run("produce", "--target", "http://127.0.0.1:1/v1", "--api-key-env", name, "--contract",
                "../config/contract.yaml");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("--api-key-env " + name + ": that variable is not set");
    }

    /** The top-level help lists each command by its description's first line: a whole sentence, not half of one. */
    @Test
    void everyCommandsSummaryIsAWholeSentence() {
        Main.commandLine().getSubcommands().forEach((name, cmd) -> {
            final String[] description = cmd.getCommandSpec().usageMessage().description();
            assertThat(description).as(name).isNotEmpty();
            assertThat(description[0]).as(name).endsWith(".");
        });
    }
}
