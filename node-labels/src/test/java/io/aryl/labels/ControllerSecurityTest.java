package io.aryl.labels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The controller's security settings: what Kerberos on requires, the ZooKeeper ACL, and start-up
 * refusals.
 */
class ControllerSecurityTest {
  @TempDir Path dir;

  private static Configuration kerberos() {
    Configuration c = new Configuration(false);
    c.set("hadoop.security.authentication", "kerberos");
    return c;
  }

  @Test
  void withoutKerberosNothingIsRequiredAndZnodesStayOpen() {
    ControllerSecurity s = ControllerSecurity.from(new Configuration(false));
    assertThat(s.kerberos()).isFalse();
    assertThat(s.zkAcl()).isEqualTo(ZooDefs.Ids.OPEN_ACL_UNSAFE);
    assertThat(s.zkAclText()).isEqualTo("world:anyone:cdrwa");
  }

  @Test
  void withKerberosTheControllerWritesAndEveryoneReads() throws Exception {
    Configuration c = kerberos();
    Path keytab = Files.writeString(dir.resolve("aryl.keytab"), "not checked here");
    c.set(LabelsConf.KERBEROS_PRINCIPAL.key(), "aryl/_HOST@EXAMPLE.COM");
    c.set(LabelsConf.KERBEROS_KEYTAB.key(), keytab.toString());
    ControllerSecurity s = ControllerSecurity.from(c);
    assertThat(s.kerberos()).isTrue();
    assertThat(s.zkAcl())
        .containsExactly(
            new ACL(ZooDefs.Perms.ALL, new Id("sasl", "aryl")),
            new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE));
    assertThat(s.zkAclText()).isEqualTo("sasl:aryl:cdrwa,world:anyone:r");
    assertThat(s.resolvedPrincipal())
        .startsWith("aryl/")
        .endsWith("@EXAMPLE.COM")
        .doesNotContain("_HOST");
    // ZooKeeper checks an ACL with contains(null): the list must allow it.
    assertThat(s.zkAcl().contains(null)).isFalse();
    assertThat(new ControllerZk.FixedAcl(s.zkAcl()).getAclForPath("/x").contains(null)).isFalse();
  }

  @Test
  void anAclOfTheOperatorsOwnIsTaken() throws Exception {
    Configuration c = kerberos();
    c.set(LabelsConf.KERBEROS_PRINCIPAL.key(), "aryl/_HOST@EXAMPLE.COM");
    c.set(LabelsConf.KERBEROS_KEYTAB.key(), Files.writeString(dir.resolve("k"), "k").toString());
    c.set(LabelsConf.ZK_ACL.key(), "sasl:aryl:cdrwa,sasl:zkadmin:cdrwa");
    assertThat(ControllerSecurity.from(c).zkAclText())
        .isEqualTo("sasl:aryl:cdrwa,sasl:zkadmin:cdrwa");
  }

  @Test
  void kerberosWithoutPrincipalOrKeytabIsRefusedNamingTheKey() throws Exception {
    assertThatThrownBy(() -> ControllerSecurity.from(kerberos()))
        .hasMessageStartingWith(LabelsConf.KERBEROS_PRINCIPAL.key())
        .hasMessageContaining("was empty");

    Configuration badPrincipal = kerberos();
    badPrincipal.set(LabelsConf.KERBEROS_PRINCIPAL.key(), "aryl");
    assertThatThrownBy(() -> ControllerSecurity.from(badPrincipal))
        .hasMessageStartingWith(LabelsConf.KERBEROS_PRINCIPAL.key())
        .hasMessageContaining("was aryl");

    Configuration noKeytab = kerberos();
    noKeytab.set(LabelsConf.KERBEROS_PRINCIPAL.key(), "aryl/_HOST@EXAMPLE.COM");
    assertThatThrownBy(() -> ControllerSecurity.from(noKeytab))
        .hasMessageStartingWith(LabelsConf.KERBEROS_KEYTAB.key())
        .hasMessageContaining("was empty");

    Configuration missing = kerberos();
    missing.set(LabelsConf.KERBEROS_PRINCIPAL.key(), "aryl/_HOST@EXAMPLE.COM");
    String path = dir.resolve("gone.keytab").toString();
    missing.set(LabelsConf.KERBEROS_KEYTAB.key(), path);
    assertThatThrownBy(() -> ControllerSecurity.from(missing))
        .hasMessageStartingWith(LabelsConf.KERBEROS_KEYTAB.key())
        .hasMessageContaining("was " + path)
        .hasMessageContaining("no such file");

    Configuration directory = kerberos();
    directory.set(LabelsConf.KERBEROS_PRINCIPAL.key(), "aryl/_HOST@EXAMPLE.COM");
    directory.set(LabelsConf.KERBEROS_KEYTAB.key(), dir.toString());
    assertThatThrownBy(() -> ControllerSecurity.from(directory))
        .hasMessageStartingWith(LabelsConf.KERBEROS_KEYTAB.key())
        .hasMessageContaining("not a regular file");
  }

  @Test
  void aBadAclIsRefusedNamingTheKeyAndValue() {
    for (String bad : List.of("sasl:aryl", "sasl:aryl:xyz", "nosuchscheme")) {
      Configuration c = new Configuration(false);
      c.set(LabelsConf.ZK_ACL.key(), bad);
      assertThatThrownBy(() -> ControllerSecurity.from(c))
          .as(bad)
          .hasMessageStartingWith(LabelsConf.ZK_ACL.key())
          .hasMessageContaining("was " + bad);
    }
  }

  @Test
  void runStopsOnABadSecuritySettingWithOneLineAndNoStackTrace() {
    PrintStream err = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    int code;
    try {
      System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
      code =
          new CommandLine(new ArylLabels())
              .execute(
                  "run",
                  "-D",
                  "hadoop.security.authentication=kerberos",
                  "-D",
                  LabelsConf.KERBEROS_PRINCIPAL.key() + "=aryl/_HOST@EXAMPLE.COM",
                  "-D",
                  LabelsConf.KERBEROS_KEYTAB.key() + "=/nonexistent/aryl.keytab",
                  "-D",
                  LabelsConf.ZK_CONNECT.key() + "=localhost:1");
    } finally {
      System.setErr(err);
    }
    String out = captured.toString(StandardCharsets.UTF_8);
    assertThat(code).isEqualTo(2);
    assertThat(out)
        .startsWith("aryl-labels run: " + LabelsConf.KERBEROS_KEYTAB.key())
        .contains("/nonexistent/aryl.keytab")
        .doesNotContain("Exception")
        .doesNotContain("\tat ");
  }
}
