package io.aryl.labels;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.aryl.core.model.Checks;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.conf.HAUtil;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.util.RMHAUtils;
import org.apache.hadoop.yarn.webapp.util.WebAppUtils;

/**
 * The web app of the active ResourceManager among its candidates, followed across restarts and
 * failovers as YARN's own clients follow it: a call goes to the RM last found active; when that RM
 * refuses the connection or answers as a standby, every candidate is asked {@code GET
 * /ws/v1/cluster/info} and the one whose {@code clusterInfo.haState} is {@code ACTIVE} gets the
 * call, and is remembered.
 *
 * <p>A standby RM (3.5.0's {@code RMWebAppFilter}) answers every path but {@code
 * /ws/v1/cluster/info} and a few others with {@code 307 Temporary Redirect}: a {@code Location} on
 * the active RM when it can find one, a {@code Refresh} header and "Can not find any active RM"
 * when it cannot, or a plain "There is no active RM right now" page. All of them count as "not the
 * active RM" here; the redirect is not followed, the candidates are asked again.
 *
 * <p>A call is sent a second time only when the first certainly did not reach a scheduler: the
 * connection was refused or timed out, or a standby answered. Any other failure (a read timeout, a
 * connection reset) may have reached the active RM, so it is not repeated: the caller hears of it,
 * and the next call looks for the active RM anew.
 *
 * <p>With a single candidate nothing is probed: the calls go to it, and a standby answer is an
 * error. Thread-safe; no resources to release (the JDK's HTTP client has none to close on Java 17).
 */
public final class ActiveRmWebApp {
  static final String CLUSTER_INFO = "/ws/v1/cluster/info";

  /** The bodies a standby's RMWebAppFilter answers with, as they start. */
  private static final List<String> STANDBY_PAGES =
      List.of("This is standby RM", "Can not find any active RM", "There is no active RM");

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * What a call carries to say who makes it: the value of its {@code Authorization} header for one
   * RM, or null for none. {@link Spnego} is the one for a Kerberos cluster.
   */
  @FunctionalInterface
  public interface Authorization {
    /** No header: a cluster without HTTP authentication. */
    Authorization NONE = rm -> null;

    /**
     * The {@code Authorization} header's value for a call to {@code rm}, or null for none.
     *
     * @throws IOException no credential could be made (the call is then not sent, and counts as not
     *     delivered)
     */
    String header(URI rm) throws IOException;
  }

  /** One answer of an RM web app: who answered, the HTTP status and the body. */
  public record Answer(URI rm, int status, String body) {}

  /**
   * The request certainly never reached an RM: connection refused, unresolvable host, connect
   * timeout.
   */
  private static final class NotDeliveredException extends IOException {
    private static final long serialVersionUID = 1L;

    NotDeliveredException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  private final List<URI> candidates;
  private final HttpClient http;
  private final Duration requestTimeout;
  private final Authorization authorization;
  private volatile URI active;

  /**
   * @param candidates base URLs of the RM web apps ({@code http(s)://host:port}), in the order they
   *     are tried
   * @param connectTimeout how long one candidate may take to accept a connection
   * @param requestTimeout how long one call may take in all
   */
  public ActiveRmWebApp(List<URI> candidates, Duration connectTimeout, Duration requestTimeout) {
    this(candidates, connectTimeout, requestTimeout, Authorization.NONE);
  }

  /**
   * @param candidates base URLs of the RM web apps ({@code http(s)://host:port}), in the order they
   *     are tried
   * @param connectTimeout how long one candidate may take to accept a connection
   * @param requestTimeout how long one call may take in all
   * @param authorization what every call carries to say who makes it
   */
  public ActiveRmWebApp(
      List<URI> candidates,
      Duration connectTimeout,
      Duration requestTimeout,
      Authorization authorization) {
    Checks.notNull("candidates", candidates);
    if (candidates.isEmpty()) {
      throw new IllegalArgumentException(
          "candidates must name at least one ResourceManager web app, was empty");
    }
    List<URI> bases = new ArrayList<>();
    for (URI c : candidates) {
      bases.add(base("candidates", Checks.notNull("candidate", c).toString()));
    }
    this.candidates = List.copyOf(bases);
    this.http =
        HttpClient.newBuilder()
            .connectTimeout(Checks.notNull("connectTimeout", connectTimeout))
            .build();
    this.requestTimeout = Checks.notNull("requestTimeout", requestTimeout);
    this.authorization = Checks.notNull("authorization", authorization);
  }

  /**
   * The candidates {@link #candidates(Configuration)} names, with a 5 s connect and a 10 s call
   * timeout.
   */
  public static ActiveRmWebApp of(Configuration conf) {
    return of(candidates(conf));
  }

  /** These candidates, with a 5 s connect and a 10 s call timeout. */
  public static ActiveRmWebApp of(List<URI> candidates) {
    return of(candidates, Authorization.NONE);
  }

  /**
   * The candidates {@link #candidates(Configuration)} names, each call carrying {@code
   * authorization}.
   */
  public static ActiveRmWebApp of(Configuration conf, Authorization authorization) {
    return of(candidates(conf), authorization);
  }

  /**
   * These candidates, with a 5 s connect and a 10 s call timeout, each call carrying {@code
   * authorization}.
   */
  public static ActiveRmWebApp of(List<URI> candidates, Authorization authorization) {
    return new ActiveRmWebApp(
        candidates, Duration.ofSeconds(5), Duration.ofSeconds(10), authorization);
  }

  /**
   * The RM web apps a configuration names: {@code aryl.labels.scheduler.url} (one URL or a
   * comma-separated list); else, with {@code yarn.resourcemanager.ha.enabled}, the web app address
   * of every id of {@code yarn.resourcemanager.ha.rm-ids} (Hadoop's {@link
   * RMHAUtils#getRMHAWebappAddresses}: the https address under {@code yarn.http.policy=HTTPS_ONLY},
   * {@code yarn.resourcemanager.hostname.<id>} with the default port when the address is not set);
   * else the one {@code yarn.resourcemanager.webapp.address}.
   */
  public static List<URI> candidates(Configuration conf) {
    String key = LabelsConf.SCHEDULER_URL.key();
    String explicit = conf.getTrimmed(key, "");
    if (!explicit.isEmpty()) {
      return parseCandidates(key, explicit);
    }
    YarnConfiguration yarn = new YarnConfiguration(conf);
    if (!HAUtil.isHAEnabled(yarn)) {
      return List.of(
          base(YarnConfiguration.RM_WEBAPP_ADDRESS, WebAppUtils.getRMWebAppURLWithScheme(yarn)));
    }
    String scheme = WebAppUtils.getHttpSchemePrefix(yarn);
    List<URI> out = new ArrayList<>();
    for (String address : RMHAUtils.getRMHAWebappAddresses(yarn)) {
      out.add(base(YarnConfiguration.RM_WEBAPP_ADDRESS + ".<rm-id>", scheme + address));
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException(
          YarnConfiguration.RM_HA_ENABLED
              + " is true but no web app address is set"
              + " for "
              + YarnConfiguration.RM_HA_IDS
              + "="
              + yarn.get(YarnConfiguration.RM_HA_IDS, "")
              + ": set "
              + YarnConfiguration.RM_WEBAPP_ADDRESS
              + ".<rm-id> or "
              + YarnConfiguration.RM_HOSTNAME
              + ".<rm-id>, or "
              + key);
    }
    return List.copyOf(out);
  }

  /**
   * {@code value}, a comma-separated list of {@code http(s)://host:port} URLs; a bad one is refused
   * naming key.
   */
  public static List<URI> parseCandidates(String key, String value) {
    List<URI> out = new ArrayList<>();
    for (String part : Checks.notNull(key, value).split(",", -1)) {
      if (part.isBlank()) {
        continue;
      }
      try {
        out.add(base(key, part.trim()));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            key
                + " must list http(s)://host:port URLs separated by commas, was '"
                + value
                + "' ("
                + part.trim()
                + ")");
      }
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException(
          key + " must list at least one http(s)://host:port URL, was '" + value + "'");
    }
    return List.copyOf(out);
  }

  private static URI base(String key, String url) {
    URI u;
    try {
      u = new URI(url.endsWith("/") ? url.substring(0, url.length() - 1) : url);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(key + " must be http(s)://host:port URLs, was " + url);
    }
    if (!("http".equals(u.getScheme()) || "https".equals(u.getScheme()))
        || u.getHost() == null
        || u.getQuery() != null
        || u.getFragment() != null) {
      throw new IllegalArgumentException(key + " must be http(s)://host:port URLs, was " + url);
    }
    return u;
  }

  public List<URI> candidates() {
    return candidates;
  }

  /** The RM web app the last call went to, if it answered as the active one. */
  public Optional<URI> active() {
    return Optional.ofNullable(active);
  }

  public Answer get(String path) throws IOException {
    return send("GET", path, null);
  }

  /**
   * Sends one call to the active RM's web app, finding it first if need be.
   *
   * @param method GET, PUT or POST
   * @param path absolute path under the web app, e.g. {@code /ws/v1/cluster/aryl}
   * @param jsonBody the JSON body, or null for none
   * @return the active RM's answer, whatever its status
   * @throws IOException no candidate is the active RM (the message says what each answered), or the
   *     call failed after it may have reached one
   */
  public Answer send(String method, String path, String jsonBody) throws IOException {
    Checks.notBlank("method", method);
    if (path == null || !path.startsWith("/")) {
      throw new IllegalArgumentException("path must start with /, was " + path);
    }
    if (candidates.size() == 1) {
      URI only = candidates.get(0);
      Answer a = exchange(only, method, path, jsonBody);
      if (isStandby(a)) {
        active = null;
        throw new IOException(
            only
                + " answered "
                + method
                + " "
                + path
                + " as a standby ResourceManager: "
                + summary(a));
      }
      active = only;
      return a;
    }
    List<String> misses = new ArrayList<>();
    URI known = active;
    if (known != null) {
      try {
        Answer a = exchange(known, method, path, jsonBody);
        if (!isStandby(a)) {
          return a;
        }
        misses.add(known + " is standby (" + summary(a) + ")");
      } catch (NotDeliveredException e) {
        misses.add(e.getMessage());
      } catch (IOException e) {
        active =
            null; // it may have reached the scheduler: not repeated; the next call looks for the
        // active RM
        throw e;
      }
      active = null;
    }
    URI found = findActive(misses);
    if (found == null) {
      throw new IOException(
          "no active ResourceManager among "
              + candidates
              + " for "
              + method
              + " "
              + path
              + ": "
              + String.join("; ", misses));
    }
    active = found;
    Answer a;
    try {
      a = exchange(found, method, path, jsonBody);
    } catch (IOException e) {
      active = null;
      throw e;
    }
    if (isStandby(a)) {
      active = null;
      throw new IOException(
          found
              + " answered "
              + method
              + " "
              + path
              + " as a standby ResourceManager right after"
              + " it reported itself active: "
              + summary(a));
    }
    return a;
  }

  /**
   * The first candidate whose cluster info says ACTIVE; what the others said goes to {@code
   * misses}.
   */
  private URI findActive(List<String> misses) {
    for (URI c : candidates) {
      try {
        Answer a = exchange(c, "GET", CLUSTER_INFO, null);
        if (a.status() != 200) {
          misses.add(c + CLUSTER_INFO + " answered " + summary(a));
          continue;
        }
        String state = JSON.readTree(a.body()).path("clusterInfo").path("haState").asText("");
        if ("ACTIVE".equals(state)) {
          return c;
        }
        misses.add(c + " is " + (state.isEmpty() ? "of unknown HA state" : state));
      } catch (IOException e) {
        misses.add(e.getMessage());
      }
    }
    return null;
  }

  private Answer exchange(URI rm, String method, String path, String jsonBody) throws IOException {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(rm + path))
            .timeout(requestTimeout)
            .header("Accept", "application/json");
    String credential;
    try {
      credential = authorization.header(rm);
    } catch (IOException e) {
      throw new NotDeliveredException(
          method + " " + rm + path + ": no credential for it: " + describe(e), e);
    }
    if (credential != null) {
      b.header("Authorization", credential);
    }
    if (jsonBody == null) {
      b.method(method, HttpRequest.BodyPublishers.noBody());
    } else {
      b.header("Content-Type", "application/json")
          .method(method, HttpRequest.BodyPublishers.ofString(jsonBody));
    }
    try {
      HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
      return new Answer(rm, r.statusCode(), r.body());
    } catch (ConnectException | HttpConnectTimeoutException e) {
      throw new NotDeliveredException(method + " " + rm + path + ": " + describe(e), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted: " + method + " " + rm + path, e);
    } catch (IOException e) {
      throw new IOException(method + " " + rm + path + ": " + describe(e), e);
    }
  }

  /** A standby's RMWebAppFilter answer (see the class comment), not the resource asked for. */
  static boolean isStandby(Answer a) {
    if (a.status() == 307) {
      return true;
    }
    String body = a.body() == null ? "" : a.body().stripLeading();
    return STANDBY_PAGES.stream().anyMatch(body::startsWith);
  }

  private static String summary(Answer a) {
    String body = a.body() == null ? "" : a.body().strip();
    return a.status()
        + (body.isEmpty()
            ? ""
            : " " + (body.length() > 200 ? body.substring(0, 200) + "..." : body));
  }

  /**
   * The JDK's connection errors often carry no message of their own: the first message along the
   * causes.
   */
  private static String describe(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t.getMessage() != null && !t.getMessage().isBlank()) {
        return e.getClass().getSimpleName() + ": " + t.getMessage();
      }
    }
    return e.getClass().getSimpleName();
  }
}
