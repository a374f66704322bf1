package io.aryl.am;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.LongSupplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.webapp.util.WebAppUtils;

/**
 * The ApplicationMaster's pages for people are reached through the ResourceManager's web proxy, as
 * YARN's own ApplicationMasters do with {@code AmIpFilter}: a request from any host but the proxy's
 * (and the ResourceManagers', whose scheduler reads the last checkpoint) is redirected to {@code
 * <proxy>/proxy/<application>/...}, where the RM's authentication and the application's view ACL
 * apply. Hosts are resolved again every few minutes, as AmIpFilter does.
 */
final class ProxyOnlyPages {
  private static final long RESOLVE_EVERY_MS = 5 * 60_000L;

  /** Resolves a host name to its addresses; the JDK's resolver in production. */
  interface Resolver {
    InetAddress[] all(String host) throws UnknownHostException;
  }

  private final List<String> allowedHostPorts;
  private final String proxyBase;
  private final Resolver resolver;
  private final LongSupplier clock;
  private Set<InetAddress> allowed = Set.of();
  private long resolvedMs;
  private boolean resolved;

  /**
   * @param allowedHostPorts {@code host:port} of the web proxies and the ResourceManagers' web apps
   * @param proxyBase where a redirected request goes: {@code http://proxy:port/proxy/<application>}
   */
  ProxyOnlyPages(
      List<String> allowedHostPorts, String proxyBase, Resolver resolver, LongSupplier clock) {
    if (allowedHostPorts.isEmpty()) {
      throw new IllegalArgumentException("no web proxy or ResourceManager web address to allow");
    }
    this.allowedHostPorts = List.copyOf(allowedHostPorts);
    this.proxyBase = proxyBase.replaceAll("/+$", "");
    this.resolver = resolver;
    this.clock = clock;
  }

  /**
   * From the job's configuration: the proxies the RM's AmFilterInitializer would name, and the RMs
   * themselves.
   */
  static ProxyOnlyPages from(Configuration conf, String applicationId) {
    List<String> proxies = WebAppUtils.getProxyHostsAndPortsForAmFilter(conf);
    Configuration withoutProxy = new Configuration(conf);
    withoutProxy.unset(YarnConfiguration.PROXY_ADDRESS);
    List<String> hosts = new ArrayList<>(proxies);
    hosts.addAll(WebAppUtils.getProxyHostsAndPortsForAmFilter(withoutProxy));
    String base =
        WebAppUtils.getHttpSchemePrefix(conf) + proxies.get(0) + "/proxy/" + applicationId;
    return new ProxyOnlyPages(hosts, base, InetAddress::getAllByName, System::currentTimeMillis);
  }

  /**
   * Where to send a request for {@code path} (with {@code rawQuery}, or null) from {@code remote}:
   * null to serve it here, else the URL on the proxy.
   */
  synchronized String redirectFor(InetAddress remote, String path, String rawQuery) {
    long now = clock.getAsLong();
    if (!resolved || now - resolvedMs >= RESOLVE_EVERY_MS) {
      allowed = resolve();
      resolvedMs = now;
      resolved = true;
    }
    if (allowed.contains(remote)) {
      return null;
    }
    return proxyBase
        + (path.startsWith("/") ? path : "/" + path)
        + (rawQuery == null ? "" : "?" + rawQuery);
  }

  private Set<InetAddress> resolve() {
    Set<InetAddress> out = new HashSet<>();
    for (String hostPort : allowedHostPorts) {
      String host =
          hostPort.substring(
              0, hostPort.lastIndexOf(':') < 0 ? hostPort.length() : hostPort.lastIndexOf(':'));
      try {
        out.addAll(List.of(resolver.all(host)));
      } catch (UnknownHostException e) {
        // a proxy that does not resolve now allows no one; the next resolution may find it
      }
    }
    return out;
  }

  String proxyBase() {
    return proxyBase;
  }

  List<String> allowedHostPorts() {
    return allowedHostPorts;
  }
}
