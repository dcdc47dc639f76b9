package dev.goodput.bench;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Debian's nginx as the reverse proxy an SRE would put in front of an engine anyway, configured for
 * streaming as its documentation says: HTTP/1.1 to the upstream with a keep-alive pool,
 * {@code proxy_buffering off} (each chunk goes on as it comes) and no request buffering; no access
 * log (Goodput's proxy writes none either); one worker per core ({@code worker_processes auto}).
 * Its CPU is its master's and workers' ({@code /proc/<pid>/stat}).
 */
final class NginxProxy implements AutoCloseable {

    static final Path BINARY = Path.of("/usr/sbin/nginx");

    private final Process master;
    private final int port;

    private NginxProxy(Process master, int port) {
        this.master = master;
        this.port = port;
    }

    /** Starts nginx in front of {@code upstreamPort}; a port taken between choosing and binding is tried again. */
    static NginxProxy start(int upstreamPort) throws IOException, InterruptedException {
        if (!Files.isExecutable(BINARY)) {
            throw new IllegalStateException("nginx is not installed (apt-get install nginx-light): bench-proxy sets it beside Goodput's proxy");
        }
        final Path dir = Files.createTempDirectory("goodput-bench-nginx");
        IOException last = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            final int port;
            try (ServerSocket s = new ServerSocket(0)) {
                port = s.getLocalPort();
            }
            final Path conf = dir.resolve("nginx.conf");
            Files.writeString(conf, String.format(Locale.ROOT, """
                    worker_processes auto;
                    daemon off;
                    pid %1$s/nginx.pid;
                    error_log %1$s/error.log warn;
                    events { worker_connections 8192; }
                    http {
                        access_log off;
                        client_body_temp_path %1$s/body;
                        proxy_temp_path %1$s/proxy;
                        upstream engine { server 127.0.0.1:%2$d; keepalive 2048; }
                        server {
                            listen 127.0.0.1:%3$d;
                            location / {
                                proxy_pass http://engine;
                                proxy_http_version 1.1;
                                proxy_set_header Connection "";
                                proxy_buffering off;
                                proxy_request_buffering off;
                                proxy_read_timeout 300s;
                            }
                        }
                    }
                    """, dir, upstreamPort, port));
            final Process p = new ProcessBuilder(BINARY.toString(), "-e", dir.resolve("stderr.log").toString(), "-p", dir.toString(),
                    "-c", conf.toString()).redirectErrorStream(true).redirectOutput(dir.resolve("out.log").toFile()).start();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (System.nanoTime() < deadline && p.isAlive()) {
                if (Files.exists(dir.resolve("nginx.pid")) && accepts(port)) {
                    return new NginxProxy(p, port);
                }
                Thread.sleep(50);
            }
            p.destroyForcibly();
            p.waitFor();
            last = new IOException("nginx did not start on port " + port + ": " + read(dir.resolve("error.log")) + read(dir.resolve("out.log")));
        }
        throw last;
    }

    private static boolean accepts(int port) {
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static String read(Path p) {
        try {
            return Files.exists(p) ? Files.readString(p) : "";
        } catch (IOException e) {
            return e.toString();
        }
    }

    int port() {
        return port;
    }

    /** The master's and every worker's pid: nginx's CPU is theirs together. */
    long[] pids() {
        final List<Long> pids = new ArrayList<>();
        pids.add(master.pid());
        master.toHandle().children().forEach(c -> pids.add(c.pid()));
        return pids.stream().mapToLong(Long::longValue).toArray();
    }

    /** utime + stime of the master and its workers, in clock ticks. */
    long cpuTicks() throws IOException {
        long ticks = 0;
        for (long pid : pids()) {
            ticks += ThreadCpu.cpuTicks(pid);
        }
        return ticks;
    }

    @Override
    public void close() throws InterruptedException {
        master.destroy();
        if (!master.waitFor(10, TimeUnit.SECONDS)) {
            master.destroyForcibly();
            master.waitFor();
        }
    }
}
