package grade

import (
	"errors"
	"fmt"
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"reflect"
	"strings"

	"github.com/llmperf-course/course/coursekit/card"
)

// errNotStatic means the card cell uses something other than literals
// (a call, a variable): the grader does not evaluate it, it only says it
// could not compare.
var errNotStatic = errors.New("the card literal is not made of constants")

// cardConsts are the package-level constants of coursekit/card a card
// literal may name (card.NearestRank, card.FixedWindow, ...).
var cardConsts = card.Constants

// CardFromSource reads the card.Card composite literal of a card cell by
// parsing it, never compiling or running it. It exists to cross-check the
// JSON the self-check embedded: a card edited after the self-check ran no
// longer matches its output. Only constant expressions are understood.
func CardFromSource(src string) (*card.Card, error) {
	var b strings.Builder
	b.WriteString("package cell\n")
	for _, line := range strings.Split(src, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "%") || strings.HasPrefix(t, "!") {
			line = "" // GoNB special commands are not Go
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	f, err := parser.ParseFile(token.NewFileSet(), "card.go", b.String(), parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("card cell does not parse: %w", err)
	}
	var lit *ast.CompositeLit
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			for _, v := range vs.Values {
				if cl, ok := unparen(v).(*ast.CompositeLit); ok && isCardType(cl.Type) {
					if lit != nil {
						return nil, errors.New("card cell declares more than one card.Card")
					}
					lit = cl
				}
			}
		}
	}
	if lit == nil {
		if len(f.Decls) > 0 { // declared some other way (a call, a variable)
			return nil, errNotStatic
		}
		return nil, errors.New("card cell declares no card.Card")
	}
	var c card.Card
	if err := evalInto(reflect.ValueOf(&c).Elem(), lit); err != nil {
		return nil, err
	}
	return &c, nil
}

func unparen(e ast.Expr) ast.Expr {
	for {
		p, ok := e.(*ast.ParenExpr)
		if !ok {
			return e
		}
		e = p.X
	}
}

func isCardType(e ast.Expr) bool {
	s, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	x, ok := s.X.(*ast.Ident)
	return ok && x.Name == "card" && s.Sel.Name == "Card"
}

// evalInto sets v from the constant expression e.
func evalInto(v reflect.Value, e ast.Expr) error {
	e = unparen(e)
	switch v.Kind() {
	case reflect.Struct:
		cl, ok := e.(*ast.CompositeLit)
		if !ok {
			return errNotStatic
		}
		t := v.Type()
		for i, el := range cl.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				k, ok := kv.Key.(*ast.Ident)
				if !ok {
					return errNotStatic
				}
				f := v.FieldByName(k.Name)
				if !f.IsValid() {
					return fmt.Errorf("%s has no field %s", t.Name(), k.Name)
				}
				if err := evalInto(f, kv.Value); err != nil {
					return err
				}
				continue
			}
			if i >= v.NumField() {
				return fmt.Errorf("too many values in %s literal", t.Name())
			}
			if err := evalInto(v.Field(i), el); err != nil {
				return err
			}
		}
		return nil
	case reflect.Slice:
		if id, ok := e.(*ast.Ident); ok && id.Name == "nil" {
			return nil
		}
		cl, ok := e.(*ast.CompositeLit)
		if !ok {
			return errNotStatic
		}
		s := reflect.MakeSlice(v.Type(), 0, len(cl.Elts))
		for _, el := range cl.Elts {
			x := reflect.New(v.Type().Elem()).Elem()
			if err := evalInto(x, el); err != nil {
				return err
			}
			s = reflect.Append(s, x)
		}
		v.Set(s)
		return nil
	}
	c, err := constOf(e)
	if err != nil {
		return err
	}
	switch v.Kind() {
	case reflect.String:
		if c.Kind() != constant.String {
			return errNotStatic
		}
		v.SetString(constant.StringVal(c))
	case reflect.Float64:
		f, ok := constant.Float64Val(constant.ToFloat(c))
		if !ok && c.Kind() != constant.Float && c.Kind() != constant.Int {
			return errNotStatic
		}
		v.SetFloat(f)
	case reflect.Int:
		i, ok := constant.Int64Val(constant.ToInt(c))
		if !ok {
			return errNotStatic
		}
		v.SetInt(i)
	default:
		return errNotStatic
	}
	return nil
}

// constOf evaluates a constant expression with Go's rules for untyped
// constants (5/10 is integer division, as the compiler would do it).
func constOf(e ast.Expr) (constant.Value, error) {
	switch x := unparen(e).(type) {
	case *ast.BasicLit:
		c := constant.MakeFromLiteral(x.Value, x.Kind, 0)
		if c.Kind() == constant.Unknown {
			return nil, errNotStatic
		}
		return c, nil
	case *ast.SelectorExpr:
		if p, ok := x.X.(*ast.Ident); ok && p.Name == "card" {
			if s, ok := cardConsts[x.Sel.Name]; ok {
				return constant.MakeString(s), nil
			}
		}
	case *ast.UnaryExpr:
		y, err := constOf(x.X)
		if err != nil || (x.Op != token.SUB && x.Op != token.ADD) {
			return nil, errNotStatic
		}
		return constant.UnaryOp(x.Op, y, 0), nil
	case *ast.BinaryExpr:
		a, err := constOf(x.X)
		if err != nil {
			return nil, err
		}
		b, err := constOf(x.Y)
		if err != nil {
			return nil, err
		}
		op := x.Op
		switch op {
		case token.ADD, token.SUB, token.MUL, token.QUO:
		default:
			return nil, errNotStatic
		}
		if (a.Kind() == constant.String) != (b.Kind() == constant.String) {
			return nil, errNotStatic
		}
		if op == token.QUO {
			if constant.Sign(b) == 0 {
				return nil, errNotStatic
			}
			if a.Kind() == constant.Int && b.Kind() == constant.Int {
				op = token.QUO_ASSIGN // integer division, as in Go
			}
		}
		return constant.BinaryOp(a, op, b), nil
	}
	return nil, errNotStatic
}
