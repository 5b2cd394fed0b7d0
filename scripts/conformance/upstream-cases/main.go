// upstream-cases lists the table cases of Go test files, one TSV row per case: the file (relative
// to the directory given with -root), the Test function, the line of the case's literal, and its
// name. A table is the slice literal, in a Test function, assigned to a variable that a
// `for ... range` statement then iterates over. A case's name is its Name/name/desc field,
// directly or in an embedded struct literal (uthelper.TestCommonStruct), else "#<index>"; a name
// met again in the same Test function gets " [2]", " [3]"... so that every row has a unique key.
//
// Test tooling only (mltwin's conformance suite, tests/conformance): it reads Volcano's sources
// and writes names, never code.
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
)

func caseName(el *ast.CompositeLit) (string, bool) {
	for _, kv := range el.Elts {
		kve, ok := kv.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		k, ok := kve.Key.(*ast.Ident)
		if !ok {
			continue
		}
		if k.Name == "Name" || k.Name == "name" || k.Name == "desc" || k.Name == "description" {
			if bl, ok := kve.Value.(*ast.BasicLit); ok && bl.Kind == token.STRING {
				s, _ := strconv.Unquote(bl.Value)
				return s, true
			}
		}
	}
	for _, kv := range el.Elts {
		if kve, ok := kv.(*ast.KeyValueExpr); ok {
			if inner, ok := kve.Value.(*ast.CompositeLit); ok {
				if _, isArr := inner.Type.(*ast.ArrayType); isArr {
					continue
				}
				if s, ok := caseName(inner); ok {
					return s, true
				}
			}
		}
	}
	return "", false
}

func main() {
	root := "."
	args := os.Args[1:]
	if len(args) >= 2 && args[0] == "-root" {
		root, args = args[1], args[2:]
	}
	for _, path := range args {
		rel, err := filepath.Rel(root, path)
		if err != nil {
			rel = path
		}
		seenNames := map[string]int{}
		fs := token.NewFileSet()
		f, err := parser.ParseFile(fs, path, nil, 0)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || len(fn.Name.Name) < 4 || fn.Name.Name[:4] != "Test" || fn.Body == nil {
				continue
			}
			tables := map[string]*ast.CompositeLit{}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				switch s := n.(type) {
				case *ast.AssignStmt:
					for i, l := range s.Lhs {
						if id, ok := l.(*ast.Ident); ok && i < len(s.Rhs) {
							if cl, ok := s.Rhs[i].(*ast.CompositeLit); ok {
								if _, isArr := cl.Type.(*ast.ArrayType); isArr {
									tables[id.Name] = cl
								}
							}
						}
					}
				case *ast.ValueSpec:
					for i, id := range s.Names {
						if i < len(s.Values) {
							if cl, ok := s.Values[i].(*ast.CompositeLit); ok {
								if _, isArr := cl.Type.(*ast.ArrayType); isArr {
									tables[id.Name] = cl
								}
							}
						}
					}
				case *ast.RangeStmt:
					id, ok := s.X.(*ast.Ident)
					if !ok {
						return true
					}
					cl, ok := tables[id.Name]
					if !ok {
						return true
					}
					delete(tables, id.Name)
					for i, e := range cl.Elts {
						var el *ast.CompositeLit
						switch v := e.(type) {
						case *ast.CompositeLit:
							el = v
						case *ast.UnaryExpr:
							el, _ = v.X.(*ast.CompositeLit)
						}
						if el == nil {
							continue
						}
						name, ok := caseName(el)
						if !ok {
							name = fmt.Sprintf("#%d", i+1)
						}
						key := fn.Name.Name + "\x00" + name
						seenNames[key]++
						if n := seenNames[key]; n > 1 {
							name = fmt.Sprintf("%s [%d]", name, n)
						}
						fmt.Printf("%s\t%s\t%d\t%s\n", rel, fn.Name.Name, fs.Position(el.Pos()).Line, name)
					}
				}
				return true
			})
		}
	}
}
