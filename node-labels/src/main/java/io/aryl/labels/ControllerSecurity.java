package io.aryl.labels;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CommonConfigurationKeys;
import org.apache.hadoop.fs.CommonConfigurationKeysPublic;
import org.apache.hadoop.security.SecurityUtil;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.util.ZKUtil;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;

/**
 * Who the loan controller is, and who may write what it keeps in ZooKeeper, read from a Hadoop
 * configuration and checked at start-up.
 *
 * <p>With {@code hadoop.security.authentication=kerberos} the controller logs in from {@code
 * aryl.labels.kerberos.keytab} as {@code aryl.labels.kerberos.principal} ({@code _HOST} replaced by
 * this host's canonical name, as every Hadoop daemon does); the same identity calls the
 * ResourceManager's web app (the REST resource, with SPNEGO) and ZooKeeper (SASL, through Hadoop's
 * own {@code HadoopZookeeperFactory}, with {@code hadoop.zk.server.principal} as the server's
 * principal when set). Every znode it creates carries {@code aryl.labels.zk.acl}; its default gives
 * the controller's principal every right and everyone else read: {@code
 * sasl:<primary>:cdrwa,world:anyone:r}, where {@code <primary>} is the principal's first component,
 * as ZooKeeper names a SASL client when it runs with {@code kerberos.removeHostFromPrincipal} and
 * {@code kerberos.removeRealmFromPrincipal} (Hadoop's advice for the ResourceManager's own znodes).
 * Without Kerberos nothing changes: no login, and ZooKeeper's open ACL unless the key says
 * otherwise.
 *
 * @param kerberos whether {@code hadoop.security.authentication} is {@code kerberos}
 * @param principal the configured principal, {@code _HOST} unresolved; empty without Kerberos
 * @param keytab the keytab file; empty without Kerberos
 * @param zkAcl the ACL of the znodes the controller creates
 * @param zkServerPrincipal {@code hadoop.zk.server.principal}, or null for ZooKeeper's default
 *     ({@code zookeeper/<host>})
 */
public record ControllerSecurity(
    boolean kerberos, String principal, String keytab, List<ACL> zkAcl, String zkServerPrincipal) {

  public ControllerSecurity {
    // Not List.copyOf: ZooKeeper checks an ACL with contains(null), which the JDK's immutable lists
    // refuse.
    zkAcl = Collections.unmodifiableList(new ArrayList<>(zkAcl));
  }

  /** Without Kerberos: no login, the open ACL. */
  public static ControllerSecurity none() {
    return new ControllerSecurity(false, "", "", ZooDefs.Ids.OPEN_ACL_UNSAFE, null);
  }

  /**
   * The settings of {@code conf}, checked.
   *
   * @throws IllegalArgumentException naming the key and its value: Kerberos on without a principal
   *     or a readable keytab, a principal that is not {@code primary[/instance]@REALM}, an ACL that
   *     does not parse
   */
  public static ControllerSecurity from(Configuration conf) {
    String auth =
        conf.getTrimmed(CommonConfigurationKeysPublic.HADOOP_SECURITY_AUTHENTICATION, "simple");
    boolean kerberos = "kerberos".equalsIgnoreCase(auth);
    String principal =
        conf.getTrimmed(
            LabelsConf.KERBEROS_PRINCIPAL.key(), LabelsConf.KERBEROS_PRINCIPAL.defaultValue());
    String keytab =
        conf.getTrimmed(
            LabelsConf.KERBEROS_KEYTAB.key(), LabelsConf.KERBEROS_KEYTAB.defaultValue());
    if (kerberos) {
      String on =
          " (" + CommonConfigurationKeysPublic.HADOOP_SECURITY_AUTHENTICATION + "=kerberos)";
      if (principal.isEmpty()) {
        throw new IllegalArgumentException(
            LabelsConf.KERBEROS_PRINCIPAL.key()
                + " must name the controller's Kerberos"
                + " principal, e.g. aryl/_HOST@EXAMPLE.COM"
                + on
                + ", was empty");
      }
      if (!principal.matches("[^/@\\s]+(/[^/@\\s]+)?@[^/@\\s]+")) {
        throw new IllegalArgumentException(
            LabelsConf.KERBEROS_PRINCIPAL.key()
                + " must be primary[/instance]@REALM,"
                + " e.g. aryl/_HOST@EXAMPLE.COM, was "
                + principal);
      }
      if (keytab.isEmpty()) {
        throw new IllegalArgumentException(
            LabelsConf.KERBEROS_KEYTAB.key()
                + " must name the keytab of "
                + principal
                + on
                + ", was empty");
      }
      Path file = Path.of(keytab);
      if (!Files.isRegularFile(file)) {
        throw new IllegalArgumentException(
            LabelsConf.KERBEROS_KEYTAB.key()
                + " must be a keytab file, was "
                + keytab
                + " ("
                + (Files.exists(file) ? "not a regular file" : "no such file")
                + ")");
      }
      if (!Files.isReadable(file)) {
        throw new IllegalArgumentException(
            LabelsConf.KERBEROS_KEYTAB.key()
                + " must be readable by this process, was "
                + keytab
                + " (permission denied)");
      }
    }
    String aclText = conf.getTrimmed(LabelsConf.ZK_ACL.key(), LabelsConf.ZK_ACL.defaultValue());
    List<ACL> acl;
    if (aclText.isEmpty()) {
      acl = kerberos ? defaultSecureAcl(principal) : ZooDefs.Ids.OPEN_ACL_UNSAFE;
    } else {
      try {
        acl = ZKUtil.parseACLs(aclText);
      } catch (RuntimeException e) {
        throw new IllegalArgumentException(
            LabelsConf.ZK_ACL.key()
                + " must be scheme:id:perms[,...] (perms of"
                + " c, d, r, w, a), e.g. sasl:aryl:cdrwa,world:anyone:r, was "
                + aclText
                + " ("
                + e.getMessage()
                + ")");
      }
      if (acl.isEmpty()) {
        throw new IllegalArgumentException(
            LabelsConf.ZK_ACL.key() + " must list at least one ACL entry, was " + aclText);
      }
    }
    String server = conf.getTrimmed(CommonConfigurationKeys.ZK_SERVER_PRINCIPAL, "");
    return new ControllerSecurity(
        kerberos,
        kerberos ? principal : "",
        kerberos ? keytab : "",
        acl,
        server.isEmpty() ? null : server);
  }

  /** {@code sasl:<primary>:cdrwa,world:anyone:r}: the controller writes, everyone reads. */
  static List<ACL> defaultSecureAcl(String principal) {
    return ZKUtil.parseACLs("sasl:" + primary(principal) + ":cdrwa,world:anyone:r");
  }

  /** The first component of a principal: {@code aryl} of {@code aryl/host@REALM}. */
  static String primary(String principal) {
    int end = principal.length();
    for (char c : new char[] {'/', '@'}) {
      int i = principal.indexOf(c);
      if (i >= 0) {
        end = Math.min(end, i);
      }
    }
    return principal.substring(0, end);
  }

  /**
   * The principal with {@code _HOST} replaced by this host's canonical name, as Hadoop's daemons
   * resolve theirs.
   */
  public String resolvedPrincipal() throws IOException {
    if (!kerberos) {
      return "";
    }
    return SecurityUtil.getServerPrincipal(
        principal, InetAddress.getLocalHost().getCanonicalHostName());
  }

  /** The ACL as ZooKeeper's CLI and {@code hadoop.zk.acl} write it. */
  public String zkAclText() {
    StringBuilder b = new StringBuilder();
    for (ACL a : zkAcl) {
      if (b.length() > 0) {
        b.append(',');
      }
      b.append(a.getId().getScheme())
          .append(':')
          .append(a.getId().getId())
          .append(':')
          .append(perms(a.getPerms()));
    }
    return b.toString();
  }

  private static String perms(int p) {
    StringBuilder b = new StringBuilder();
    if ((p & ZooDefs.Perms.CREATE) != 0) {
      b.append('c');
    }
    if ((p & ZooDefs.Perms.DELETE) != 0) {
      b.append('d');
    }
    if ((p & ZooDefs.Perms.READ) != 0) {
      b.append('r');
    }
    if ((p & ZooDefs.Perms.WRITE) != 0) {
      b.append('w');
    }
    if ((p & ZooDefs.Perms.ADMIN) != 0) {
      b.append('a');
    }
    return b.toString();
  }

  /**
   * Logs in from the keytab (Kerberos on), or takes the current user (off).
   *
   * @param processWide make the login the process's login user, as a daemon does (RPC then logs in
   *     again from the keytab by itself when the ticket expires); false: a login of its own, for a
   *     process that holds another login, like a test running a ResourceManager in the same JVM
   * @throws IOException naming the principal and the keytab when the KDC refuses the login
   */
  public UserGroupInformation login(Configuration conf, boolean processWide) throws IOException {
    if (!kerberos) {
      return UserGroupInformation.getCurrentUser();
    }
    UserGroupInformation.setConfiguration(conf);
    String name = resolvedPrincipal();
    try {
      if (processWide) {
        UserGroupInformation.loginUserFromKeytab(name, keytab);
        return UserGroupInformation.getLoginUser();
      }
      return UserGroupInformation.loginUserFromKeytabAndReturnUGI(name, keytab);
    } catch (IOException e) {
      throw new IOException(
          "Kerberos login as "
              + name
              + " ("
              + LabelsConf.KERBEROS_PRINCIPAL.key()
              + "="
              + principal
              + ") from "
              + LabelsConf.KERBEROS_KEYTAB.key()
              + "="
              + keytab
              + " failed: "
              + rootMessage(e),
          e);
    }
  }

  private static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
  }
}
