package dev.goodput.config;

import java.net.InetSocketAddress;

import picocli.CommandLine;

/** A {@code --listen host:port} value (port 0 to 65535; 0 takes a free one), refused at start otherwise. */
public final class ListenAddress implements CommandLine.ITypeConverter<InetSocketAddress> {

    @Override
    public InetSocketAddress convert(String hostPort) {
        final int colon = hostPort.lastIndexOf(':');
        int port = -1;
        if (colon > 0) {
            try {
                port = Integer.parseInt(hostPort.substring(colon + 1));
            } catch (NumberFormatException e) {
                port = -1;
            }
        }
        if (port < 0 || port > 65_535) {
            throw new CommandLine.TypeConversionException("--listen wants host:port (port 0 to 65535), got " + hostPort);
        }
        return new InetSocketAddress(hostPort.substring(0, colon), port);
    }
}
