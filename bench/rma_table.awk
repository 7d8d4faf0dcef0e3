# bench/rma_table.awk: the Markdown table of bench/rma-compare.sh and
# bench/rma-verbs.sh from their raw lines ("impl=I bench=B size=S value=V
# unit=U ..."): per metric and size, the median over rounds of each impl's
# value (min-max over rounds), then the first impl's median divided by each
# other's. Variables: impls (space-separated, the first is the reference),
# names (comma-separated column titles), first (the reference's name in the
# ratio titles).
function median(list,   n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
    lo = a[1]; hi = a[n]
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function fmt(v) { return v >= 100 ? sprintf("%.0f", v) : v >= 10 ? sprintf("%.1f", v) : v >= 1 ? sprintf("%.2f", v) : sprintf("%.3f", v) }
{
    delete f
    for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
    k = f["bench"] " " f["size"]
    if (!(k in unit)) { unit[k] = f["unit"]; order[++n] = k }
    v[k, f["impl"]] = v[k, f["impl"]] " " f["value"]
}
END {
    ni = split(impls, im, " ")
    split(names, nm, ",")
    head = "| metric | size (B) | unit |"; rule = "|---|---|---|"
    for (j = 1; j <= ni; j++) { head = head " " nm[j] " |"; rule = rule "---|" }
    for (j = 2; j <= ni; j++) { head = head " " first " / " nm[j] " |"; rule = rule "---|" }
    print head
    print rule
    for (i = 1; i <= n; i++) {
        k = order[i]; split(k, p, " ")
        line = "| " p[1] " | " p[2] " | " unit[k] " |"
        for (j = 1; j <= ni; j++) {
            if ((k, im[j]) in v) { m[j] = median(v[k, im[j]]); line = line " " fmt(m[j]) " (" fmt(lo) "–" fmt(hi) ") |" }
            else { m[j] = ""; line = line " – |" }
        }
        for (j = 2; j <= ni; j++)
            line = line ((m[1] != "" && m[j] != "" && m[j] > 0) ? sprintf(" %.2f |", m[1] / m[j]) : " – |")
        print line
    }
}
