package io.aryl.yarn.web;

import io.aryl.api.ArylPaths;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.servlet.Filter;
import javax.servlet.FilterChain;
import javax.servlet.FilterConfig;
import javax.servlet.ServletException;
import javax.servlet.ServletOutputStream;
import javax.servlet.ServletRequest;
import javax.servlet.ServletResponse;
import javax.servlet.WriteListener;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import javax.servlet.http.HttpServletResponseWrapper;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.http.FilterContainer;
import org.apache.hadoop.http.FilterInitializer;
import org.apache.hadoop.http.lib.StaticUserWebFilter;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.server.security.http.RMAuthenticationFilterInitializer;

/**
 * Puts an "Aryl" entry, linking to {@link ArylPaths#PAGE}, into the Cluster menu of the
 * ResourceManager's web UI, after "Scheduler". The RM's menu has no extension point; a servlet
 * filter is Hadoop's supported way to add to its web app ({@code hadoop.http.filter.initializers}).
 * Only the RM's own pages ({@code /cluster...}) that answer 200 with HTML are touched; everything
 * else passes as it is.
 */
public final class ArylNavLink implements Filter {
  /** The configuration key of the web app's filter initializers. */
  public static final String INITIALIZERS = "hadoop.http.filter.initializers";

  private static final Pattern SCHEDULER_ITEM =
      Pattern.compile("<a href=\"([^\"]*)cluster/scheduler\">Scheduler</a>(\\s*</li>)?");

  /** Adds the filter to the web app it is configured for. */
  public static final class Initializer extends FilterInitializer {
    @Override
    public void initFilter(FilterContainer container, Configuration conf) {
      container.addFilter("aryl-nav-link", ArylNavLink.class.getName(), Map.of());
    }
  }

  /**
   * Adds {@link Initializer} to the ResourceManager's filter initializers, before the RM sets its
   * web app up from them. The RM gives a web app configured with no initializers or Hadoop's
   * default one alone its own simple authentication ({@code RMWebAppUtil.setupSecurityAndFilters});
   * a list that Aryl lengthened would no longer read as the default, so in that case the RM's
   * set-up is written out first, as the RM would have made it. Any other list the RM uses as it is,
   * and it only gets Aryl's entry appended. Idempotent.
   */
  public static void install(Configuration conf) {
    List<String> names = new ArrayList<>(conf.getTrimmedStringCollection(INITIALIZERS));
    if (names.contains(Initializer.class.getName())) {
      return;
    }
    boolean rmDefault =
        names.isEmpty() || names.equals(List.of(StaticUserWebFilter.class.getName()));
    if (rmDefault && !UserGroupInformation.isSecurityEnabled()) {
      names.add(0, RMAuthenticationFilterInitializer.class.getName());
      conf.set("hadoop.http.authentication.type", "simple");
    }
    names.add(Initializer.class.getName());
    conf.set(INITIALIZERS, String.join(",", names));
  }

  /**
   * The page with Aryl's entry after the RM menu's "Scheduler"; unchanged if it has no such menu or
   * has the entry.
   */
  static String withLink(String html) {
    Matcher m = SCHEDULER_ITEM.matcher(html);
    if (!m.find() || html.contains("id=\"aryl-nav\"")) {
      return html;
    }
    // The RM's pages leave their list items unclosed; the entry is closed either way.
    String item =
        "\n<li id=\"aryl-nav\"><a href=\""
            + m.group(1)
            + ArylPaths.PAGE.substring(1)
            + "\">Aryl</a></li>";
    return html.substring(0, m.end()) + item + html.substring(m.end());
  }

  /**
   * Nothing to set up; declared rather than inherited because a Hadoop install may put {@code
   * javax.servlet-api} 3.1 (jetty-server's, where {@code init} and {@code destroy} are abstract)
   * ahead of {@code jakarta.servlet-api} 4.0 (where they are defaults) on the RM's class path: an
   * inherited default then stops the RM's web app with an {@code AbstractMethodError}.
   */
  @Override
  public void init(FilterConfig config) {
    // no state
  }

  /** Nothing to release; declared for the same reason as {@link #init}. */
  @Override
  public void destroy() {
    // no state
  }

  @Override
  public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    if (!(request instanceof HttpServletRequest r)
        || !(response instanceof HttpServletResponse out)
        || !"GET".equals(r.getMethod())
        || !r.getRequestURI().startsWith("/cluster")) {
      chain.doFilter(request, response);
      return;
    }
    Buffered page = new Buffered(out);
    chain.doFilter(request, page);
    byte[] body = page.bytes();
    if (body.length == 0) {
      return; // nothing written, or an error or redirect the container answered itself
    }
    String type = page.getContentType();
    if (page.status == HttpServletResponse.SC_OK && type != null && type.startsWith("text/html")) {
      Charset charset = charset(page.getCharacterEncoding());
      body = withLink(new String(body, charset)).getBytes(charset);
    }
    if (!out.isCommitted()) {
      out.setContentLength(body.length);
    }
    out.getOutputStream().write(body);
  }

  private static Charset charset(String name) {
    try {
      return name == null ? StandardCharsets.ISO_8859_1 : Charset.forName(name);
    } catch (IllegalArgumentException e) {
      return StandardCharsets.UTF_8;
    }
  }

  /**
   * Holds a page's body until it is complete, so that its length can be set once the entry is in.
   */
  private static final class Buffered extends HttpServletResponseWrapper {
    private final ByteArrayOutputStream body = new ByteArrayOutputStream();
    private PrintWriter writer;
    private ServletOutputStream stream;
    int status = SC_OK;

    Buffered(HttpServletResponse response) {
      super(response);
    }

    byte[] bytes() {
      if (writer != null) {
        writer.flush();
      }
      return body.toByteArray();
    }

    @Override
    public void setStatus(int sc) {
      status = sc;
      super.setStatus(sc);
    }

    @Override
    public void sendError(int sc) throws IOException {
      status = sc;
      super.sendError(sc);
    }

    @Override
    public void sendError(int sc, String msg) throws IOException {
      status = sc;
      super.sendError(sc, msg);
    }

    @Override
    public void sendRedirect(String location) throws IOException {
      status = SC_FOUND;
      super.sendRedirect(location);
    }

    @Override
    public void setContentLength(int len) {
      // set once the body is complete
    }

    @Override
    public void setContentLengthLong(long len) {
      // set once the body is complete
    }

    @Override
    public void flushBuffer() {
      // the body goes out once complete
    }

    @Override
    public PrintWriter getWriter() {
      if (writer == null) {
        writer = new PrintWriter(new OutputStreamWriter(body, charset(getCharacterEncoding())));
      }
      return writer;
    }

    @Override
    public ServletOutputStream getOutputStream() {
      if (stream == null) {
        stream =
            new ServletOutputStream() {
              @Override
              public void write(int b) {
                body.write(b);
              }

              @Override
              public void write(byte[] b, int off, int len) {
                body.write(b, off, len);
              }

              @Override
              public boolean isReady() {
                return true;
              }

              @Override
              public void setWriteListener(WriteListener listener) {
                throw new UnsupportedOperationException(
                    "Aryl's menu entry buffers pages: no asynchronous writes");
              }
            };
      }
      return stream;
    }
  }
}
