package dev.goodput.proxy;

/** The same cases through the proxy for TLS upstreams (the JDK's server and Jetty's client), here in front of a plain-HTTP one. */
class JettyProxyTest extends ProxyTest {
    @Override
    boolean viaJetty() {
        return true;
    }
}
