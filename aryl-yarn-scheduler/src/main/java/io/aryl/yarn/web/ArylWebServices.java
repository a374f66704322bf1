package io.aryl.yarn.web;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.aryl.yarn.ArylScheduler;
import io.aryl.yarn.ArylUnavailableException;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.inject.Inject;
import javax.inject.Named;
import javax.inject.Singleton;
import javax.servlet.http.HttpServletRequest;
import javax.ws.rs.Consumes;
import javax.ws.rs.GET;
import javax.ws.rs.POST;
import javax.ws.rs.Path;
import javax.ws.rs.Produces;
import javax.ws.rs.core.Context;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.security.AdminACLsManager;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.apache.hadoop.yarn.server.resourcemanager.webapp.RMWebAppUtil;
import org.apache.hadoop.yarn.server.resourcemanager.webapp.RMWebServices;

/**
 * The ResourceManager's REST API with Aryl's resource added. Configure with
 * {@code yarn.webapp.custom.webservice.class=io.aryl.yarn.web.ArylWebServices}: every stock {@code /ws/v1/cluster}
 * endpoint stays, and
 *
 * <ul>
 *   <li>{@code GET /ws/v1/cluster/aryl}: the current plan, nodes and loans, per-application target vs actual workers,
 *       reclaims in flight and past;
 *   <li>{@code POST /ws/v1/cluster/aryl/reclaims} with {@code {"nodes": N, "deadlineMs": epochMs, "gpuType": "..."}}
 *       ({@code deadlineMs} and {@code gpuType} optional): return N loaned nodes to inference. Admin only when
 *       {@code yarn.acl.enable} is on. 201 with the reclaim, 400 when it cannot be done, with the reason, 503 while
 *       Aryl recovers after the ResourceManager became active (or cannot store the reclaim): ask again shortly.
 *   <li>{@code PUT /ws/v1/cluster/aryl/loan-controller} with a JSON object: the loan controller's leader reports its
 *       state (role, epoch, demand, decision), shown under {@code loanController} in {@code GET}. Admin only when
 *       {@code yarn.acl.enable} is on.
 * </ul>
 */
@Singleton
@Path("/ws/v1/cluster")
public class ArylWebServices extends RMWebServices {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final ResourceManager rm;
  private final Configuration conf;

  @Inject
  public ArylWebServices(@Named("rm") ResourceManager rm, @Named("conf") Configuration conf) {
    super(rm, conf);
    this.rm = rm;
    this.conf = conf;
  }

  @GET
  @Path("/aryl")
  @Produces(MediaType.APPLICATION_JSON)
  public Response arylStatus() {
    ArylScheduler s = scheduler();
    if (s == null) {
      return json(Response.Status.NOT_FOUND, error("the scheduler is not ArylScheduler"));
    }
    return json(Response.Status.OK, s.arylStatus());
  }

  @POST
  @Path("/aryl/reclaims")
  @Consumes(MediaType.APPLICATION_JSON)
  @Produces(MediaType.APPLICATION_JSON)
  public Response reclaim(@Context HttpServletRequest hsr, String body) {
    ArylScheduler s = scheduler();
    Response refused = refuseWrite(s, hsr);
    if (refused != null) {
      return refused;
    }
    int nodes;
    long deadlineMs;
    String gpuType;
    try {
      JsonNode req = JSON.readTree(body == null ? "" : body);
      if (req == null || !req.isObject()) {
        return json(Response.Status.BAD_REQUEST, error("body must be a JSON object like {\"nodes\": 2}"));
      }
      JsonNode n = req.get("nodes");
      if (n == null || !n.canConvertToInt() || n.asInt() < 1) {
        return json(Response.Status.BAD_REQUEST, error("nodes must be an integer >= 1, was " + n));
      }
      nodes = n.asInt();
      JsonNode d = req.get("deadlineMs");
      if (d != null && (!d.canConvertToLong() || d.asLong() < 0)) {
        return json(Response.Status.BAD_REQUEST, error("deadlineMs must be epoch milliseconds, was " + d));
      }
      deadlineMs = d == null ? 0 : d.asLong();
      JsonNode t = req.get("gpuType");
      if (t != null && !t.isNull() && !t.isTextual()) {
        return json(Response.Status.BAD_REQUEST, error("gpuType must be a GPU type's name, was " + t));
      }
      gpuType = t == null || t.isNull() ? null : t.asText();
    } catch (JsonProcessingException e) {
      return json(Response.Status.BAD_REQUEST, error("body is not JSON: " + e.getOriginalMessage()));
    }
    try {
      return json(Response.Status.CREATED, s.requestReclaim(nodes, gpuType, deadlineMs));
    } catch (ArylUnavailableException e) {
      return json(Response.Status.SERVICE_UNAVAILABLE, error(e.getMessage()));
    } catch (IllegalArgumentException | IllegalStateException e) {
      return json(Response.Status.BAD_REQUEST, error(e.getMessage()));
    }
  }

  /** Largest loan controller report kept, in characters. */
  static final int MAX_REPORT_CHARS = 64 * 1024;

  @javax.ws.rs.PUT
  @Path("/aryl/loan-controller")
  @Consumes(MediaType.APPLICATION_JSON)
  @Produces(MediaType.APPLICATION_JSON)
  public Response loanControllerReport(@Context HttpServletRequest hsr, String body) {
    ArylScheduler s = scheduler();
    Response refused = refuseWrite(s, hsr);
    if (refused != null) {
      return refused;
    }
    if (body == null || body.length() > MAX_REPORT_CHARS) {
      return json(Response.Status.BAD_REQUEST,
          error("report must be a JSON object of at most " + MAX_REPORT_CHARS + " characters"));
    }
    try {
      JsonNode report = JSON.readTree(body);
      if (report == null || !report.isObject()) {
        return json(Response.Status.BAD_REQUEST, error("report must be a JSON object"));
      }
      s.reportLoanController(JSON.convertValue(report, Map.class));
      return json(Response.Status.OK, Map.of("accepted", true));
    } catch (JsonProcessingException e) {
      return json(Response.Status.BAD_REQUEST, error("body is not JSON: " + e.getOriginalMessage()));
    }
  }

  /** 404 without a running Aryl; 401/403 when ACLs are on and the caller is not a YARN admin; else null. */
  private Response refuseWrite(ArylScheduler s, HttpServletRequest hsr) {
    if (s == null || !s.arylEnabled()) {
      return json(Response.Status.NOT_FOUND, error("Aryl is not running in this ResourceManager"));
    }
    if (!conf.getBoolean(YarnConfiguration.YARN_ACL_ENABLE, YarnConfiguration.DEFAULT_YARN_ACL_ENABLE)) {
      return null;
    }
    UserGroupInformation caller = RMWebAppUtil.getCallerUserGroupInformation(hsr, true);
    if (caller == null) {
      return json(Response.Status.UNAUTHORIZED, error("this call needs an authenticated caller"));
    }
    if (!new AdminACLsManager(conf).isAdmin(caller)) {
      return json(Response.Status.FORBIDDEN, error("user " + caller.getShortUserName() + " is not a YARN admin"));
    }
    return null;
  }

  private ArylScheduler scheduler() {
    return rm.getResourceScheduler() instanceof ArylScheduler s ? s : null;
  }

  private static Map<String, Object> error(String message) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("error", message);
    return m;
  }

  private static Response json(Response.Status status, Object body) {
    try {
      return Response.status(status).type(MediaType.APPLICATION_JSON).entity(JSON.writeValueAsString(body)).build();
    } catch (JsonProcessingException e) {
      return Response.serverError().entity("{\"error\":\"could not write the answer\"}").build();
    }
  }
}
