/* functions.h: the filters, tests, lookups and globals that registry.c
 * lists, by the file that defines them (one family per file). Included by
 * engine.h; a new filter is a FILTER_FN(name) in its family's file, a line
 * here and a row in registry.c. */
#ifndef IMC_TEMPLATE_FUNCTIONS_H
#define IMC_TEMPLATE_FUNCTIONS_H

/* filters-data.c */
FILTER_FN(b64decode); FILTER_FN(b64encode); FILTER_FN(from_json);
FILTER_FN(from_yaml); FILTER_FN(from_yaml_all); FILTER_FN(hash);
FILTER_FN(md5); FILTER_FN(sha1); FILTER_FN(to_json); FILTER_FN(to_nice_json);
FILTER_FN(to_nice_yaml); FILTER_FN(to_yaml); FILTER_FN(tojson);

/* filters-datetime.c */
GLOBAL_FN(now);
FILTER_FN(to_datetime);

/* filters-dict.c */
FILTER_FN(combine); FILTER_FN(dict2items); FILTER_FN(items);
FILTER_FN(items2dict);

/* filters-format.c */
FILTER_FN(comment); FILTER_FN(filesizeformat); FILTER_FN(human_readable);
FILTER_FN(human_to_bytes); FILTER_FN(password_hash); FILTER_FN(strftime);
FILTER_FN(to_uuid); FILTER_FN(urldecode); FILTER_FN(urlencode);

/* filters-jmespath.c */
FILTER_FN(json_query);

/* filters-list.c */
FILTER_FN(batch); FILTER_FN(first); FILTER_FN(flatten); FILTER_FN(join);
FILTER_FN(last); FILTER_FN(length); FILTER_FN(list); FILTER_FN(product);
FILTER_FN(random); FILTER_FN(reverse); FILTER_FN(shuffle); FILTER_FN(slice);
FILTER_FN(subelements); FILTER_FN(sum); FILTER_FN(zip);
FILTER_FN(zip_longest);

/* filters-logic.c */
FILTER_FN(bool); FILTER_FN(changed_compat); FILTER_FN(default);
FILTER_FN(failed_compat); FILTER_FN(float); FILTER_FN(int);
FILTER_FN(mandatory); FILTER_FN(skipped_compat); FILTER_FN(string);
FILTER_FN(success_compat); FILTER_FN(ternary); FILTER_FN(type_debug);

/* filters-markup.c */
FILTER_FN(striptags); FILTER_FN(xmlattr);

/* filters-math.c */
FILTER_FN(abs); FILTER_FN(log); FILTER_FN(pow); FILTER_FN(root);
FILTER_FN(round);

/* filters-path.c */
FILTER_FN(basename); FILTER_FN(dirname); FILTER_FN(expanduser);
FILTER_FN(expandvars); FILTER_FN(fileglob); FILTER_FN(path_join);
FILTER_FN(realpath); FILTER_FN(relpath); FILTER_FN(splitext);
FILTER_FN(urlsplit); FILTER_FN(unvault); FILTER_FN(vault); FILTER_FN(win_basename);
FILTER_FN(win_dirname); FILTER_FN(win_splitdrive);

/* filters-pprint.c */
FILTER_FN(pprint);

/* filters-regex.c */
FILTER_FN(regex_escape); FILTER_FN(regex_findall); FILTER_FN(regex_replace);
FILTER_FN(regex_search);

/* filters-select.c */
FILTER_FN(attr); FILTER_FN(extract); FILTER_FN(map); FILTER_FN(reject);
FILTER_FN(rejectattr); FILTER_FN(select); FILTER_FN(selectattr);

/* filters-seq.c */
FILTER_FN(combinations); FILTER_FN(permutations); FILTER_FN(rekey_on_member);

/* filters-sort.c */
FILTER_FN(dictsort); FILTER_FN(difference); FILTER_FN(groupby);
FILTER_FN(intersect); FILTER_FN(max); FILTER_FN(min); FILTER_FN(sort);
FILTER_FN(symmetric_difference); FILTER_FN(union); FILTER_FN(unique);

/* filters-string.c */
FILTER_FN(capitalize); FILTER_FN(center); FILTER_FN(escape);
FILTER_FN(format); FILTER_FN(indent); FILTER_FN(lower); FILTER_FN(quote);
FILTER_FN(regex_escape_dummy); FILTER_FN(replace); FILTER_FN(rsplit);
FILTER_FN(split); FILTER_FN(title); FILTER_FN(trim); FILTER_FN(truncate);
FILTER_FN(upper); FILTER_FN(wordcount);

/* filters-wrap.c */
FILTER_FN(wordwrap);

/* globals.c */
GLOBAL_FN(dict); GLOBAL_FN(lookup); GLOBAL_FN(namespace); GLOBAL_FN(query);
GLOBAL_FN(range); GLOBAL_FN(undef);

/* lookup.c */
LOOKUP_FN(dict); LOOKUP_FN(env); LOOKUP_FN(file); LOOKUP_FN(fileglob);
LOOKUP_FN(first_found); LOOKUP_FN(flattened); LOOKUP_FN(indexed_items);
LOOKUP_FN(items); LOOKUP_FN(lines); LOOKUP_FN(list); LOOKUP_FN(nested);
LOOKUP_FN(password); LOOKUP_FN(pipe); LOOKUP_FN(random_choice);
LOOKUP_FN(sequence); LOOKUP_FN(subelements); LOOKUP_FN(template);
LOOKUP_FN(together); LOOKUP_FN(vars); LOOKUP_FN(varnames);
json_t *lookup_parse_kv(const char *s, bool keep_raw);

/* lookup-csvfile.c */
LOOKUP_FN(csvfile);
/* lookup-ini.c */
LOOKUP_FN(ini);
/* lookup-unvault.c */
LOOKUP_FN(unvault);
/* lookup-config.c */
LOOKUP_FN(config);
/* lookup-inventory.c */
LOOKUP_FN(inventory_hostnames);

/* tests.c */
TEST_FN(abs); TEST_FN(all); TEST_FN(any); TEST_FN(boolean);
TEST_FN(callable); TEST_FN(changed); TEST_FN(contains); TEST_FN(defined);
TEST_FN(directory); TEST_FN(divisibleby); TEST_FN(eq); TEST_FN(escaped);
TEST_FN(even); TEST_FN(exists); TEST_FN(failed); TEST_FN(falsy);
TEST_FN(file); TEST_FN(filter); TEST_FN(finished); TEST_FN(float);
TEST_FN(ge); TEST_FN(gt); TEST_FN(in); TEST_FN(integer); TEST_FN(is_false);
TEST_FN(is_true); TEST_FN(iterable); TEST_FN(le); TEST_FN(link);
TEST_FN(link_exists); TEST_FN(lower); TEST_FN(lt); TEST_FN(mapping);
TEST_FN(match); TEST_FN(mount); TEST_FN(nan); TEST_FN(ne); TEST_FN(none);
TEST_FN(number); TEST_FN(odd); TEST_FN(reachable); TEST_FN(regex);
TEST_FN(same_file); TEST_FN(sameas); TEST_FN(search); TEST_FN(sequence);
TEST_FN(skipped); TEST_FN(started); TEST_FN(string); TEST_FN(subset);
TEST_FN(succeeded); TEST_FN(superset); TEST_FN(test); TEST_FN(truthy);
TEST_FN(undefined); TEST_FN(unreachable); TEST_FN(upper); TEST_FN(uri);
TEST_FN(url); TEST_FN(urn); TEST_FN(vault_encrypted); TEST_FN(version);

#endif
