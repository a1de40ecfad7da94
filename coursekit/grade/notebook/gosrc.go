package notebook

import (
	"errors"
	"fmt"
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"go/types"
	"reflect"
	"strings"

	"github.com/llmperf-course/course/coursekit/card"
)

// ErrNotStatic means the card cell uses something other than literals
// (a call, a variable): the grader does not evaluate it, it only says it
// could not read the card from the source.
var ErrNotStatic = errors.New("the card literal is not made of constants")

// cardConst is an exported constant of package card: the name of its card
// type ("" when untyped) and its value. cardConsts (cardconsts.go) lists
// them all; TestCardConstTable type-checks package card with go/types and
// fails when the table falls behind.
//
// Why a table and not go/types at grading time: type-checking a cell
// against package card needs card's source or export data, which an
// installed coursekit (a Gradescope image, an instructor's laptop) does
// not carry. The table is compiled in, and the test keeps it exact.
type cardConst struct {
	typ string
	val constant.Value
}

// CardFromSource reads the card.Card composite literal of a card cell by
// parsing it, never compiling or running it. The source is the card the
// learner submitted: the grader grades it, and the card JSON the
// self-check embedded is only evidence that the cell ran (an edit after
// the self-check, or forged output, no longer matches it). The cell
// contract: one `var myCard = card.Card{...}` of basic literals, nested
// composite literals of card types and exported constants of package
// card. A call or a variable is ErrNotStatic; a literal that would not
// compile (a wrong type, an unknown field or constant) is another error.
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
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "card.go", b.String(), parser.SkipObjectResolution)
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
			return nil, ErrNotStatic
		}
		return nil, errors.New("card cell declares no card.Card")
	}
	var c card.Card
	if err := evalInto(reflect.ValueOf(&c).Elem(), lit, false); err != nil {
		var fe *fieldError
		if errors.As(err, &fe) {
			// The cell's line: the source was given a package clause first.
			return nil, fmt.Errorf("card cell line %d: %w", fset.Position(fe.pos).Line-1, fe)
		}
		return nil, err
	}
	return &c, nil
}

// fieldError is a key that names no field of its literal's type, at pos.
type fieldError struct {
	pos token.Pos
	msg string
}

func (e *fieldError) Error() string { return e.msg }

// movedToCard are the fields card.Condition held before they moved to
// card.Card (payload schema v2): no SLO enters them, one per card.
var movedToCard = map[string]bool{"P95": true, "FailureRate": true}

// unknownField is the error for key name in a literal of type t.
func unknownField(t reflect.Type, k *ast.Ident) error {
	msg := fmt.Sprintf("%s has no field %s", typeString(t), k.Name)
	if t == reflect.TypeFor[card.Condition]() && movedToCard[k.Name] {
		msg += " (the old card layout: P95 and FailureRate are the card's own fields now, beside SuccessSamples and Attempts, one per card)"
	}
	return &fieldError{pos: k.Pos(), msg: msg}
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

// typeString is how a card cell names type t: "card.Step", "[]card.Step".
func typeString(t reflect.Type) string {
	if t.Kind() == reflect.Slice {
		return "[]" + typeString(t.Elem())
	}
	if t.PkgPath() == cardPkgPath {
		return "card." + t.Name()
	}
	return t.String()
}

var cardPkgPath = reflect.TypeOf(card.Card{}).PkgPath()

// evalInto sets v from the constant expression e, checking types as the
// compiler would (a cell that would not compile is not a card). elem is
// true for the elements of a slice literal, whose type may be elided.
func evalInto(v reflect.Value, e ast.Expr, elem bool) error {
	e = unparen(e)
	switch v.Kind() {
	case reflect.Struct, reflect.Slice:
		if id, ok := e.(*ast.Ident); ok && id.Name == "nil" && v.Kind() == reflect.Slice {
			return nil
		}
		cl, ok := e.(*ast.CompositeLit)
		if !ok {
			return ErrNotStatic
		}
		if cl.Type == nil && !elem {
			return fmt.Errorf("a %s literal needs its type written out", typeString(v.Type()))
		}
		if cl.Type != nil && types.ExprString(cl.Type) != typeString(v.Type()) {
			return fmt.Errorf("cannot use %s as %s", types.ExprString(cl.Type), typeString(v.Type()))
		}
		if v.Kind() == reflect.Slice {
			s := reflect.MakeSlice(v.Type(), 0, len(cl.Elts))
			for _, el := range cl.Elts {
				x := reflect.New(v.Type().Elem()).Elem()
				if err := evalInto(x, el, true); err != nil {
					return err
				}
				s = reflect.Append(s, x)
			}
			v.Set(s)
			return nil
		}
		t := v.Type()
		for i, el := range cl.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				k, ok := kv.Key.(*ast.Ident)
				if !ok {
					return ErrNotStatic
				}
				f := v.FieldByName(k.Name)
				if !f.IsValid() {
					return unknownField(t, k)
				}
				if err := evalInto(f, kv.Value, false); err != nil {
					return err
				}
				continue
			}
			if i >= v.NumField() {
				return fmt.Errorf("too many values in %s literal", typeString(t))
			}
			if err := evalInto(v.Field(i), el, false); err != nil {
				return err
			}
		}
		return nil
	}
	c, typ, err := constOf(e)
	if err != nil {
		return err
	}
	if typ != "" && "card."+typ != typeString(v.Type()) {
		return fmt.Errorf("cannot use a card.%s constant as %s", typ, typeString(v.Type()))
	}
	switch v.Kind() {
	case reflect.String:
		if c.Kind() != constant.String {
			return fmt.Errorf("cannot use %s as %s", c, typeString(v.Type()))
		}
		v.SetString(constant.StringVal(c))
	case reflect.Float64:
		f, _ := constant.Float64Val(constant.ToFloat(c))
		if c.Kind() != constant.Float && c.Kind() != constant.Int {
			return fmt.Errorf("cannot use %s as %s", c, typeString(v.Type()))
		}
		v.SetFloat(f)
	case reflect.Int:
		i, ok := constant.Int64Val(constant.ToInt(c))
		if !ok {
			return fmt.Errorf("%s is not an integer (%s)", c, typeString(v.Type()))
		}
		v.SetInt(i)
	default:
		return ErrNotStatic
	}
	return nil
}

// constOf evaluates a constant expression with Go's rules for untyped
// constants (5/10 is integer division, as the compiler would do it). typ
// is the card type of a named constant of package card, "" otherwise.
func constOf(e ast.Expr) (v constant.Value, typ string, err error) {
	switch x := unparen(e).(type) {
	case *ast.BasicLit:
		c := constant.MakeFromLiteral(x.Value, x.Kind, 0)
		if c.Kind() == constant.Unknown {
			return nil, "", ErrNotStatic
		}
		return c, "", nil
	case *ast.SelectorExpr:
		if p, ok := x.X.(*ast.Ident); ok && p.Name == "card" {
			if c, ok := cardConsts[x.Sel.Name]; ok {
				return c.val, c.typ, nil
			}
			return nil, "", fmt.Errorf("card.%s is not a constant of package card", x.Sel.Name)
		}
	case *ast.UnaryExpr:
		y, _, err := constOf(x.X)
		if err != nil || (x.Op != token.SUB && x.Op != token.ADD) {
			return nil, "", ErrNotStatic
		}
		return constant.UnaryOp(x.Op, y, 0), "", nil
	case *ast.BinaryExpr:
		a, _, err := constOf(x.X)
		if err != nil {
			return nil, "", err
		}
		b, _, err := constOf(x.Y)
		if err != nil {
			return nil, "", err
		}
		op := x.Op
		switch op {
		case token.ADD, token.SUB, token.MUL, token.QUO:
		default:
			return nil, "", ErrNotStatic
		}
		if (a.Kind() == constant.String) != (b.Kind() == constant.String) {
			return nil, "", ErrNotStatic
		}
		if op == token.QUO {
			if constant.Sign(b) == 0 {
				return nil, "", ErrNotStatic
			}
			if a.Kind() == constant.Int && b.Kind() == constant.Int {
				op = token.QUO_ASSIGN // integer division, as in Go
			}
		}
		return constant.BinaryOp(a, op, b), "", nil
	}
	return nil, "", ErrNotStatic
}
