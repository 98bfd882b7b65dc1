/* excite.c - Excitation/ports: the ports a port-driven run excites
 * (docs/case-files.md, docs/outputs.md).  Each excited port is one
 * right-hand side, the others stay matched loads, so a subset gives the
 * columns S_ij (every i, each excited j) that the full run gives: a wave
 * port's column of S is what its own solve measures at every port while
 * the others are matched (post/port_sparams.c).  Two things need every
 * column and are refused with a subset: lumped ports (driven by a current
 * with the other lumped ports open: S = Q P^-1 mixes the columns) and a
 * reference other than the ports' own (Ports/ * /z0 > 0: the
 * renormalisation mixes them too). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "em_model.h"

uint32_t em_excite_all(int n_port) {
  return n_port >= 32 ? 0xffffffffu : n_port > 0 ? (1u << n_port) - 1 : 0;
}

int em_excite_count(uint32_t mask) {
  int n = 0;
  for (; mask; mask &= mask - 1) n++;
  return n;
}

int em_excite_port(uint32_t mask, int col) {
  for (int p = 0; p < 32; p++)
    if (mask >> p & 1u && col-- == 0) return p;
  return -1;
}

int em_excite_column(uint32_t mask, int port) {
  if (port < 0 || port >= 32 || !(mask >> port & 1u)) return -1;
  return em_excite_count(mask & ((1u << port) - 1));
}

/* "all" or "i, j, ...": each a whole number 1..n_port (1..EM_MAX_PORTS
 * while the ports are not known, n_port < 0), none twice. */
em_err em_excite_parse(const char *s, int n_port, uint32_t *mask) {
  const char *name = "Excitation/ports";
  int cap = n_port >= 0 ? n_port : EM_MAX_PORTS;
  *mask = 0;
  EM_CHECK(s, EM_ERR_ARG, "%s: no value", name);
  const char *p = s + strspn(s, " \t");
  size_t l = strlen(p);
  while (l && isspace((unsigned char)p[l - 1])) l--;
  if (l == 3 && !strncasecmp(p, "all", 3)) {
    *mask = em_excite_all(cap);
    return EM_OK;
  }
  EM_CHECK(l > 0, EM_ERR_INPUT,
           "%s = \"%s\": empty; use all, or port numbers 1..%d comma-separated (\"1\", \"1,6\")",
           name, s, cap);
  while (*p) {
    p += strspn(p, " \t");
    size_t n = strcspn(p, ",");
    char tok[32];
    size_t t = n;
    while (t && isspace((unsigned char)p[t - 1])) t--;
    EM_CHECK(t > 0, EM_ERR_INPUT,
             "%s = \"%s\": an empty entry; use all, or port numbers 1..%d comma-separated", name, s,
             cap);
    snprintf(tok, sizeof tok, "%.*s", (int)(t < sizeof tok - 1 ? t : sizeof tok - 1), p);
    int digits = t < sizeof tok && strspn(tok, "0123456789") == t;
    EM_CHECK(digits, EM_ERR_INPUT,
             "%s = \"%s\": \"%s\" is not a port number; use all, or port numbers 1..%d "
             "comma-separated",
             name, s, tok, cap);
    long v = t > 6 ? 1000000 : strtol(tok, NULL, 10);
    EM_CHECK(v >= 1, EM_ERR_INPUT,
             "%s = \"%s\": port %s: ports are numbered from 1 (port1 .. port%d)", name, s, tok,
             cap);
    if (n_port >= 0)
      EM_CHECK(v <= n_port, EM_ERR_INPUT,
               "%s = \"%s\": port %s of %d: the case has %d port(s) (port1 .. port%d)", name, s,
               tok, n_port, n_port, n_port);
    else
      EM_CHECK(v <= EM_MAX_PORTS, EM_ERR_INPUT,
               "%s = \"%s\": port %s: at most %d ports are supported", name, s, tok, EM_MAX_PORTS);
    EM_CHECK(!(*mask >> (v - 1) & 1u), EM_ERR_INPUT, "%s = \"%s\": port %ld is listed twice", name,
             s, v);
    *mask |= 1u << (v - 1);
    p += n;
    if (*p == ',') {
      p++;
      EM_CHECK(p[strspn(p, " \t")], EM_ERR_INPUT,
               "%s = \"%s\": an empty entry at the end; use all, or port numbers 1..%d "
               "comma-separated",
               name, s, cap);
    }
  }
  return EM_OK;
}

/* "port1, port6" into buf */
static void names(const em_setup *s, uint32_t mask, char *buf, size_t cap) {
  size_t len = 0;
  buf[0] = '\0';
  for (int p = 0; p < s->n_port && len < cap; p++)
    if (mask >> p & 1u)
      len += (size_t)snprintf(buf + len, cap - len, "%s%s", len ? ", " : "", s->port[p].name);
}

em_err em_excite_setup(em_model *m, const em_log *log) {
  const char *v;
  const em_setup *s = &m->setup;
  int np = s->n_port;
  EM_TRY(em_case_string(m->cs, "Excitation/ports", &v));
  m->excite = em_excite_all(np);
  uint32_t mask;
  if (!np) { /* a plane wave alone: nothing to choose */
    EM_TRY(em_excite_parse(v, -1, &mask));
    EM_CHECK(mask == em_excite_all(EM_MAX_PORTS), EM_ERR_INPUT,
             "Excitation/ports = \"%s\": case %s has no port", v, em_case_path(m->cs));
    return EM_OK;
  }
  EM_TRY(em_excite_parse(v, np, &mask));
  if (mask == m->excite) return EM_OK;
  EM_CHECK(!m->ff.planewave, EM_ERR_INPUT,
           "Excitation/ports = \"%s\" with Excitation/type planewave: the plane wave drives the "
           "structure and every port is its matched load; leave Excitation/ports all",
           v);
  for (int p = 0; p < np; p++) {
    const em_port *pt = &s->port[p];
    EM_CHECK(pt->type != EM_PORT_LUMPED, EM_ERR_INPUT,
             "Excitation/ports = \"%s\": %s is lumped; the S of lumped ports needs every "
             "excitation (each is driven by a current with the others open); leave "
             "Excitation/ports all",
             v, pt->name);
    EM_CHECK(pt->z_ref <= 0, EM_ERR_INPUT,
             "Excitation/ports = \"%s\": Ports/%s/z0 = %g ohm renormalises S, which needs every "
             "column; leave Excitation/ports all, or Ports/%s/z0 0 (the port's own impedance)",
             v, pt->name, pt->z_ref, pt->name);
  }
  const em_array_config *A = &m->ff.arr;
  char on[512];
  names(s, mask, on, sizeof on);
  if (A->enabled && !A->scan)
    for (int p = 0; p < np; p++)
      EM_CHECK(A->w[p] == 0 || mask >> p & 1u, EM_ERR_INPUT,
               "Array/weights \"%s\" drives %s, which Excitation/ports = \"%s\" does not excite "
               "(%s): the array pattern needs every port of nonzero weight excited",
               A->weights, s->port[p].name, v, on);
  m->excite = mask;
  em_log_info(log,
              "excitation: %s driven (%d of %d ports, Excitation/ports), the others matched "
              "loads; their columns of S in ports.csv and summary.json, no %s.s%dp (a Touchstone "
              "file holds the whole S-matrix)",
              on, em_excite_count(mask), np, em_case_name(m->cs), np);
  if (A->enabled)
    em_log_info(log,
                "array: embedded patterns of the driven ports only, no active reflection "
                "(active.csv needs every column of S)%s",
                A->scan ? "; no array pattern (the scan of Array/scan_theta, scan_phi drives "
                          "every port; Array/weights of driven ports gives one)"
                        : "");
  return EM_OK;
}
