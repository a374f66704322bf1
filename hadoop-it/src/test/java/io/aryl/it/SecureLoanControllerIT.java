package io.aryl.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.aryl.api.ArylPaths;
import io.aryl.api.status.LoanTargetStatus;
import io.aryl.core.loan.LoanPolicy;
import io.aryl.labels.ActiveRmWebApp;
import io.aryl.labels.ActiveRmWebApp.Answer;
import io.aryl.labels.ControllerSecurity;
import io.aryl.labels.ControllerZk;
import io.aryl.labels.LabelsConf;
import io.aryl.labels.LoanController;
import io.aryl.labels.LoanDecider;
import io.aryl.labels.SchedulerResource;
import io.aryl.labels.Spnego;
import io.aryl.yarn.conf.ArylSettings;
import io.aryl.yarn.state.StateStore;
import io.aryl.yarn.state.StateStores;
import java.io.File;
import java.net.InetAddress;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.security.auth.login.AppConfigurationEntry;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.hadoop.fs.CommonConfigurationKeys;
import org.apache.hadoop.fs.CommonConfigurationKeysPublic;
import org.apache.hadoop.minikdc.MiniKdc;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.authentication.util.KerberosUtil;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The loan controller in a Kerberos cluster, every part real: a MiniKdc; a ZooKeeper that
 * authenticates clients over SASL (Kerberos) and names them by their principal's first component; a
 * ResourceManager and NodeManagers with Kerberos on, {@code yarn.acl.enable} and {@code
 * yarn.admin.acl=rm,aryl}, whose web app takes SPNEGO only. The controller is built as {@code
 * aryl-labels run} builds it: {@link ControllerSecurity} from the configuration, a login from its
 * keytab, {@link ControllerZk}'s client, {@link Spnego} on {@link ActiveRmWebApp}.
 *
 * <p>Kerberos, JAAS and UGI are JVM-wide: tagged {@code secure}, this class runs in a JVM of its
 * own (hadoop-it's pom).
 */
@Tag("secure")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SecureLoanControllerIT {
  private static final String ROOT = "/aryl/loan-controller";

  /** A target of a far newer epoch: in force, it would fence the real controller. */
  private static final String FORGED_TARGET =
      "{\"epoch\": 999, \"controller\": \"mallory\", \"maxOnLoan\": 2}";

  @TempDir static Path dir;

  static MiniKdc kdc;
  static String realm;
  static File arylKeytab;
  static File malloryKeytab;
  static TestingServer zk;
  static ArylMiniCluster cluster;
  static final List<AutoCloseable> open = new ArrayList<>();
  static final Map<String, String> savedProperties = new HashMap<>();
  static javax.security.auth.login.Configuration savedJaas;

  @BeforeAll
  static void kerberosZooKeeperAndCluster() throws Exception {
    long t0 = System.currentTimeMillis();
    Properties kdcConf = MiniKdc.createConf();
    kdc = new MiniKdc(kdcConf, dir.resolve("kdc").toFile());
    kdc.start();
    realm = kdc.getRealm();
    String host = InetAddress.getLocalHost().getCanonicalHostName();
    File rmKeytab = dir.resolve("rm.keytab").toFile();
    File httpKeytab = dir.resolve("http.keytab").toFile();
    File zkKeytab = dir.resolve("zookeeper.keytab").toFile();
    arylKeytab = dir.resolve("aryl.keytab").toFile();
    malloryKeytab = dir.resolve("mallory.keytab").toFile();
    kdc.createPrincipal(rmKeytab, withHost("rm", host));
    kdc.createPrincipal(httpKeytab, withHost("HTTP", host));
    kdc.createPrincipal(zkKeytab, "zookeeper/localhost");
    kdc.createPrincipal(arylKeytab, "aryl/localhost");
    kdc.createPrincipal(malloryKeytab, "mallory/localhost");

    // ZooKeeper with SASL: its JAAS "Server" section, and a "Mallory" one for the test's other
    // principal. The
    // controller's own section is added by Hadoop's HadoopZookeeperFactory on top of these.
    savedJaas = javax.security.auth.login.Configuration.getConfiguration();
    javax.security.auth.login.Configuration.setConfiguration(
        new Jaas(
            Map.of(
                "Server", keytabEntry("zookeeper/localhost@" + realm, zkKeytab, false),
                "Mallory", keytabEntry("mallory/localhost@" + realm, malloryKeytab, true))));
    setProperty(
        "zookeeper.authProvider.1", "org.apache.zookeeper.server.auth.SASLAuthenticationProvider");
    setProperty("zookeeper.kerberos.removeHostFromPrincipal", "true");
    setProperty("zookeeper.kerberos.removeRealmFromPrincipal", "true");
    int port = InstanceSpec.getRandomPort();
    zk =
        new TestingServer(
            new InstanceSpec(dir.resolve("zk").toFile(), port, -1, -1, true, 1, 2000, 60), true);

    YarnConfiguration conf = ArylMiniCluster.testConf(dir.resolve("yarn").toFile());
    conf.set(CommonConfigurationKeysPublic.HADOOP_SECURITY_AUTHENTICATION, "kerberos");
    conf.setBoolean(CommonConfigurationKeysPublic.HADOOP_SECURITY_AUTHORIZATION, false);
    conf.set(YarnConfiguration.RM_PRINCIPAL, "rm/_HOST@" + realm);
    conf.set(YarnConfiguration.RM_KEYTAB, rmKeytab.getAbsolutePath());
    // All daemons share the JVM's one login user: the NodeManagers log in as the ResourceManager's
    // principal.
    conf.set(YarnConfiguration.NM_PRINCIPAL, "rm/_HOST@" + realm);
    conf.set(YarnConfiguration.NM_KEYTAB, rmKeytab.getAbsolutePath());
    conf.set(YarnConfiguration.RM_WEBAPP_SPNEGO_USER_NAME_KEY, "HTTP/_HOST@" + realm);
    conf.set(YarnConfiguration.RM_WEBAPP_SPNEGO_KEYTAB_FILE_KEY, httpKeytab.getAbsolutePath());
    conf.set("hadoop.http.authentication.type", "kerberos");
    conf.set("hadoop.http.authentication.kerberos.principal", "*");
    conf.set("hadoop.http.authentication.kerberos.keytab", httpKeytab.getAbsolutePath());
    conf.set(
        "hadoop.http.filter.initializers",
        "org.apache.hadoop.security.AuthenticationFilterInitializer");
    conf.setBoolean(YarnConfiguration.YARN_ACL_ENABLE, true);
    conf.set(YarnConfiguration.YARN_ADMIN_ACL, "rm,aryl");
    UserGroupInformation.setConfiguration(conf);
    UserGroupInformation.loginUserFromKeytab("rm/localhost@" + realm, rmKeytab.getAbsolutePath());
    cluster = ArylMiniCluster.start("secure", conf, 2, 1);
    System.out.printf(
        "SecureLoanControllerIT: KDC, SASL ZooKeeper and secure cluster up in %d ms%n",
        System.currentTimeMillis() - t0);
  }

  @AfterAll
  static void stop() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      try {
        open.get(i).close();
      } catch (Exception e) {
        // already closed
      }
    }
    try {
      if (cluster != null) {
        cluster.close();
      }
      if (zk != null) {
        zk.close();
      }
    } finally {
      if (kdc != null) {
        kdc.stop();
      }
      javax.security.auth.login.Configuration.setConfiguration(savedJaas);
      savedProperties.forEach(
          (k, v) -> {
            if (v == null) {
              System.clearProperty(k);
            } else {
              System.setProperty(k, v);
            }
          });
      UserGroupInformation.reset();
    }
  }

  /** The controller's configuration, as an operator writes it. */
  static YarnConfiguration controllerConf() {
    YarnConfiguration c = new YarnConfiguration(cluster.conf());
    c.set(LabelsConf.KERBEROS_PRINCIPAL.key(), "aryl/localhost@" + realm);
    c.set(LabelsConf.KERBEROS_KEYTAB.key(), arylKeytab.getAbsolutePath());
    c.set(LabelsConf.ZK_CONNECT.key(), zk.getConnectString());
    return c;
  }

  @Test
  @Order(1)
  @DisplayName(
      "the controller, logged in from its keytab, leads over SASL and sets the loan target over SPNEGO: the"
          + " scheduler lends an idle node and brings it back; its znodes carry sasl:aryl:cdrwa,world:anyone:r")
  void controllerWithItsKeytabSetsTheTarget() throws Exception {
    YarnConfiguration conf = controllerConf();
    ControllerSecurity security = ControllerSecurity.from(conf);
    assertThat(security.kerberos()).isTrue();
    UserGroupInformation login = security.login(conf, false);
    assertThat(login.getUserName()).isEqualTo("aryl/localhost@" + realm);
    CuratorFramework client =
        ControllerZk.client(zk.getConnectString(), 10_000, 5_000, new RetryOneTime(200), security);
    open.add(client);
    client.start();
    assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
    ActiveRmWebApp web =
        ActiveRmWebApp.of(
            ActiveRmWebApp.parseCandidates("rm", localhost(cluster.webAddress())),
            new Spnego(login));
    AtomicReference<Double> rate = new AtomicReference<>(200.0);
    LoanController lc =
        new LoanController(
            client,
            new LoanController.Config(
                "secure-a",
                ROOT,
                200,
                new LoanDecider.Settings(new LoanPolicy(100, 0, 0), 0, 0, 4, LoanRig.DEADLINE_MS)),
            List.of(rate::get),
            new SchedulerResource(web),
            System::currentTimeMillis);
    open.add(lc);
    lc.start();

    long t0 = System.currentTimeMillis();
    cluster.awaitShowingStatus(
        "the controller leads and its target 0, sent over SPNEGO, is in force",
        () -> lc.isActing() && targetFrom(lc, 0));
    rate.set(100.0);
    cluster.awaitShowingStatus(
        "target 1: one idle inference node lent",
        () -> targetFrom(lc, 1) && count("training") == 1);
    long lentMs = System.currentTimeMillis() - t0;
    rate.set(200.0);
    cluster.awaitShowingStatus(
        "target 0: the lent node back home", () -> targetFrom(lc, 0) && count("inference") == 2);
    assertThat(lc.targetsAccepted()).isPositive();
    assertThat(lc.status()).containsEntry("lastError", null);

    List<ACL> expected =
        List.of(
            new ACL(ZooDefs.Perms.ALL, new Id("sasl", "aryl")),
            new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE));
    List<String> znodes =
        new ArrayList<>(List.of(ROOT, ROOT + "/epoch", ROOT + "/leader", "/aryl"));
    for (String child : client.getChildren().forPath(ROOT + "/leader")) {
      znodes.add(ROOT + "/leader/" + child);
    }
    for (String z : znodes) {
      assertThat(client.getACL().forPath(z))
          .as("ACL of %s", z)
          .containsExactlyInAnyOrderElementsOf(expected);
    }
    System.out.printf(
        "SecureLoanControllerIT: lent %d ms after start, home %d ms after start, %d znodes with"
            + " %s%n",
        lentMs, System.currentTimeMillis() - t0, znodes.size(), security.zkAclText());
  }

  /**
   * The target in force in the scheduler: {@code maxOnLoan}, set by {@code lc} under its epoch now.
   */
  private static boolean targetFrom(LoanController lc, int maxOnLoan) {
    LoanTargetStatus t = cluster.aryl().status().loanTarget();
    return t != null
        && t.maxOnLoan() == maxOnLoan
        && t.controller().equals(lc.instanceId())
        && t.epoch() == lc.epoch();
  }

  @Test
  @Order(2)
  @DisplayName(
      "a ZooKeeper client without credentials reads the epoch but cannot claim one, delete it or join the"
          + " election (NoAuth); without SPNEGO the write endpoints answer 401")
  void noCredentialsAreRefused() throws Exception {
    ZKClientConfig anonymous = new ZKClientConfig();
    anonymous.setProperty(ZKClientConfig.ENABLE_CLIENT_SASL_KEY, "false");
    CuratorFramework c = plainClient(anonymous);
    assertForgeriesRefused(c);

    ActiveRmWebApp web =
        ActiveRmWebApp.of(ActiveRmWebApp.parseCandidates("rm", localhost(cluster.webAddress())));
    Answer reclaim = web.send("POST", ArylPaths.RECLAIMS, "{\"nodes\": 1}");
    assertThat(reclaim.status())
        .as("POST reclaims without SPNEGO: %s", reclaim.body())
        .isEqualTo(401);
    Answer target = web.send("PUT", ArylPaths.LOAN_TARGET, FORGED_TARGET);
    assertThat(target.status())
        .as("PUT loan-target without SPNEGO: %s", target.body())
        .isEqualTo(401);
  }

  @Test
  @Order(3)
  @DisplayName(
      "another principal (mallory) authenticates, but ZooKeeper refuses its writes (NoAuth) and the write"
          + " endpoints answer 403: it can neither set the loan target nor reclaim")
  void anotherPrincipalIsRefused() throws Exception {
    ZKClientConfig mallory = new ZKClientConfig();
    mallory.setProperty(ZKClientConfig.LOGIN_CONTEXT_NAME_KEY, "Mallory");
    CuratorFramework c = plainClient(mallory);
    c.getChildren().forPath(ROOT); // authenticated (or this would fail with AuthFailed)
    assertForgeriesRefused(c);

    UserGroupInformation ugi =
        UserGroupInformation.loginUserFromKeytabAndReturnUGI(
            "mallory/localhost@" + realm, malloryKeytab.getAbsolutePath());
    ActiveRmWebApp web =
        ActiveRmWebApp.of(
            ActiveRmWebApp.parseCandidates("rm", localhost(cluster.webAddress())), new Spnego(ugi));
    Answer status = web.get(ArylPaths.STATUS);
    assertThat(status.status())
        .as("GET with mallory's SPNEGO: authenticated, may read")
        .isEqualTo(200);
    Answer reclaim = web.send("POST", ArylPaths.RECLAIMS, "{\"nodes\": 1}");
    assertThat(reclaim.status()).as("POST reclaims as mallory: %s", reclaim.body()).isEqualTo(403);
    assertThat(reclaim.body()).contains("mallory");
    Answer target = web.send("PUT", ArylPaths.LOAN_TARGET, FORGED_TARGET);
    assertThat(target.status()).as("PUT loan-target as mallory: %s", target.body()).isEqualTo(403);
    assertThat(cluster.aryl().status().loanTarget().controller())
        .as("the target in force is the controller's")
        .isEqualTo("secure-a");
  }

  @Test
  @Order(4)
  @DisplayName(
      "the scheduler's ZooKeeper state store, opened as the RM opens it (ZKCuratorManager, hadoop.zk.acl,"
          + " SASL as rm): only rm writes; aryl and mallory get NoAuth")
  void schedulersStateStoreIsTheRmsOnly() throws Exception {
    YarnConfiguration conf = new YarnConfiguration(cluster.conf());
    conf.set(CommonConfigurationKeys.ZK_ADDRESS, zk.getConnectString());
    conf.set(CommonConfigurationKeys.ZK_ACL, "sasl:rm:cdrwa,world:anyone:r");
    conf.set(CommonConfigurationKeys.ZK_KERBEROS_PRINCIPAL, "rm/localhost@" + realm);
    conf.set(CommonConfigurationKeys.ZK_KERBEROS_KEYTAB, dir.resolve("rm.keytab").toString());
    ArylSettings settings =
        ArylSettings.from(
            Map.of(
                "aryl.scheduler.state-store",
                "zookeeper",
                "aryl.scheduler.state-store.zk.root",
                "/aryl-scheduler"));
    try (StateStore store = StateStores.open(settings, conf, null)) {
      store.claim();
      store.write("jobs", "{}".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
    List<ACL> expected =
        List.of(
            new ACL(ZooDefs.Perms.ALL, new Id("sasl", "rm")),
            new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE));
    ZKClientConfig mallory = new ZKClientConfig();
    mallory.setProperty(ZKClientConfig.LOGIN_CONTEXT_NAME_KEY, "Mallory");
    CuratorFramework c = plainClient(mallory);
    for (String z :
        List.of(
            "/aryl-scheduler",
            "/aryl-scheduler/epoch",
            "/aryl-scheduler/state",
            "/aryl-scheduler/state/jobs")) {
      assertThat(c.getACL().forPath(z))
          .as("ACL of %s", z)
          .containsExactlyInAnyOrderElementsOf(expected);
    }
    assertThatThrownBy(() -> c.setData().forPath("/aryl-scheduler/state/jobs", new byte[0]))
        .isInstanceOf(KeeperException.NoAuthException.class);
    assertThatThrownBy(() -> c.setData().forPath("/aryl-scheduler/epoch", new byte[0]))
        .isInstanceOf(KeeperException.NoAuthException.class);
    assertThatThrownBy(() -> c.delete().forPath("/aryl-scheduler/epoch"))
        .isInstanceOf(KeeperException.NoAuthException.class);
  }

  /** Every write a forger would need, refused with NoAuth; reading stays open. */
  private static void assertForgeriesRefused(CuratorFramework c) throws Exception {
    assertThat(c.getData().forPath(ROOT + "/epoch")).as("the epoch is readable").isNotNull();
    assertThatThrownBy(() -> c.setData().forPath(ROOT + "/epoch", "mallory".getBytes()))
        .as("claim an epoch")
        .isInstanceOf(KeeperException.NoAuthException.class);
    assertThatThrownBy(() -> c.delete().forPath(ROOT + "/epoch"))
        .as("delete the epoch")
        .isInstanceOf(KeeperException.NoAuthException.class);
    assertThatThrownBy(() -> c.create().forPath(ROOT + "/forged", new byte[0]))
        .as("create under the controller's root")
        .isInstanceOf(KeeperException.NoAuthException.class);
    assertThatThrownBy(
            () ->
                c.create()
                    .withMode(org.apache.zookeeper.CreateMode.EPHEMERAL_SEQUENTIAL)
                    .forPath(ROOT + "/leader/latch-", new byte[0]))
        .as("join the election")
        .isInstanceOf(KeeperException.NoAuthException.class);
    assertThatThrownBy(() -> c.setACL().withACL(ZooDefs.Ids.OPEN_ACL_UNSAFE).forPath(ROOT))
        .as("open the ACL")
        .isInstanceOf(KeeperException.NoAuthException.class);
  }

  private static CuratorFramework plainClient(ZKClientConfig config) throws InterruptedException {
    CuratorFramework c =
        CuratorFrameworkFactory.builder()
            .connectString(zk.getConnectString())
            .sessionTimeoutMs(10_000)
            .connectionTimeoutMs(5_000)
            .retryPolicy(new RetryOneTime(200))
            .zkClientConfig(config)
            .build();
    open.add(c);
    c.start();
    assertThat(c.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
    return c;
  }

  private static int count(String label) {
    int n = 0;
    for (int i = 0; i < 2; i++) {
      if (label.equals(cluster.partitionOf(i))) {
        n++;
      }
    }
    return n;
  }

  /** The RM's web app under the host name its SPNEGO principal is made for. */
  private static String localhost(String url) {
    URI u = URI.create(url);
    return "http://localhost:" + u.getPort();
  }

  /**
   * {@code service/localhost}, and {@code service/host} too when this host has a name of its own.
   */
  private static String[] withHost(String service, String host) {
    return "localhost".equals(host)
        ? new String[] {service + "/localhost"}
        : new String[] {service + "/localhost", service + "/" + host};
  }

  private static void setProperty(String key, String value) {
    savedProperties.putIfAbsent(key, System.getProperty(key));
    System.setProperty(key, value);
  }

  private static AppConfigurationEntry keytabEntry(
      String principal, File keytab, boolean initiator) {
    Map<String, String> options = new HashMap<>();
    options.put("useKeyTab", "true");
    options.put("keyTab", keytab.getAbsolutePath());
    options.put("principal", principal);
    options.put("storeKey", "true");
    options.put("useTicketCache", "false");
    options.put("doNotPrompt", "true");
    options.put("refreshKrb5Config", "true");
    options.put("isInitiator", Boolean.toString(initiator));
    return new AppConfigurationEntry(
        KerberosUtil.getKrb5LoginModuleName(),
        AppConfigurationEntry.LoginModuleControlFlag.REQUIRED,
        options);
  }

  /** A JAAS configuration of named sections. */
  static final class Jaas extends javax.security.auth.login.Configuration {
    private final Map<String, AppConfigurationEntry> entries;

    Jaas(Map<String, AppConfigurationEntry> entries) {
      this.entries = Map.copyOf(entries);
    }

    @Override
    public AppConfigurationEntry[] getAppConfigurationEntry(String name) {
      AppConfigurationEntry e = entries.get(name);
      return e == null ? null : new AppConfigurationEntry[] {e};
    }
  }
}
