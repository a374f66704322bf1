package io.aryl.labels;

import io.aryl.core.model.Checks;
import java.io.IOException;
import java.net.URI;
import java.security.PrivilegedExceptionAction;
import java.util.Base64;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.authentication.util.KerberosUtil;
import org.ietf.jgss.GSSContext;
import org.ietf.jgss.GSSException;
import org.ietf.jgss.GSSManager;
import org.ietf.jgss.GSSName;

/**
 * SPNEGO for the ResourceManager's web app: each call carries {@code Authorization: Negotiate
 * <token>}, a Kerberos ticket of the controller's login for the RM's {@code HTTP/<host>} principal,
 * made as Hadoop's own {@code KerberosAuthenticator} makes it (service {@code HTTP}, the host of
 * the URL, the realm of that host's domain). The RM's authentication filter answers 401 to a call
 * without one, or with a ticket it cannot read. The service ticket is cached in the login's
 * credentials, so only the first call of a ticket's lifetime asks the KDC.
 */
public final class Spnego implements ActiveRmWebApp.Authorization {
  private final UserGroupInformation login;

  /**
   * @param login a Kerberos login, e.g. {@link ControllerSecurity#login}
   */
  public Spnego(UserGroupInformation login) {
    this.login = Checks.notNull("login", login);
  }

  @Override
  public String header(URI rm) throws IOException {
    login.checkTGTAndReloginFromKeytab();
    String service = KerberosUtil.getServicePrincipal("HTTP", rm.getHost());
    try {
      byte[] token =
          login.doAs(
              (PrivilegedExceptionAction<byte[]>)
                  () -> {
                    try {
                      GSSManager gss = GSSManager.getInstance();
                      GSSName name =
                          gss.createName(service, KerberosUtil.NT_GSS_KRB5_PRINCIPAL_OID);
                      GSSContext context =
                          gss.createContext(
                              name,
                              KerberosUtil.GSS_KRB5_MECH_OID,
                              null,
                              GSSContext.DEFAULT_LIFETIME);
                      try {
                        context.requestCredDeleg(false);
                        context.requestMutualAuth(false);
                        return context.initSecContext(new byte[0], 0, 0);
                      } finally {
                        context.dispose();
                      }
                    } catch (GSSException e) {
                      throw new IOException(
                          "SPNEGO token of "
                              + login.getUserName()
                              + " for "
                              + service
                              + ": "
                              + e.getMessage(),
                          e);
                    }
                  });
      return "Negotiate " + Base64.getEncoder().encodeToString(token);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted making a SPNEGO token for " + service, e);
    }
  }
}
